package gateway

import (
	"fmt"
	"strings"
	"testing"
)

// TestBacklogBytesBounded: the backlog of unclaimed runs is bounded by the
// bytes of its events, not only their count. Runs started over HTTP are
// never claimed, and each kept up to backlogEvents events carrying whole
// messages (400 KB for a maximal one): a write-scope caller could pin
// hundreds of MB. The newest runs stay, and a run's end is
// kept even past the budget.
func TestBacklogBytesBounded(t *testing.T) {
	const maxBytes = 1000
	big := func(n int) func(*wireEvent) {
		return func(ev *wireEvent) { ev.payload = []byte(`"` + strings.Repeat("x", n) + `"`) }
	}
	tests := []struct {
		name     string
		runs     int
		size     int
		wantLast bool // the newest run's events are still there
	}{
		{"small events fit", 5, 10, true},
		{"large events evict older runs", 50, 300, true},
		{"an event larger than the budget", 3, 2 * maxBytes, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBacklog(256, 16, maxBytes)
			for i := range tt.runs {
				r := fmt.Sprint("r", i)
				b.add(wev("agent", "k", r, big(tt.size)))
				b.add(wev("chat", "k", r, big(tt.size), ended))
				if b.bytes > maxBytes+2*(tt.size+2) {
					t.Fatalf("after %d runs the backlog holds %d bytes (budget %d)", i+1, b.bytes, maxBytes)
				}
			}
			sum := 0
			for _, rb := range b.runs {
				sum += rb.bytes
			}
			if sum != b.bytes {
				t.Fatalf("bytes %d, runs sum to %d", b.bytes, sum)
			}
			evs, done := b.take(fmt.Sprint("r", tt.runs-1))
			if tt.wantLast && (!done || len(evs) == 0 || !evs[len(evs)-1].ended) {
				t.Fatalf("newest run: %d events, ended %v; want its end kept", len(evs), done)
			}
			for id := range b.runs {
				b.take(id)
			}
			if b.bytes != 0 {
				t.Fatalf("after taking every run: %d bytes", b.bytes)
			}
		})
	}
}
