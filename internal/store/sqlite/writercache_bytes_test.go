package sqlite

import (
	"fmt"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestWriterCacheRunBytesBounded: the run rows the writer remembers are
// bounded by their size, not only their count. Runs of maximal messages
// (api.MessageChars of 4-byte characters, with a spec and a reply as
// large) once kept about 1.6 MB each for maxCachedRuns runs: gigabytes a
// write-scope caller could pin in the gateway's heap.
func TestWriterCacheRunBytesBounded(t *testing.T) {
	tests := []struct {
		name    string
		runs    int
		msgSize int
	}{
		{"many small runs", maxCachedRuns + 10, 100},
		{"large runs", 200, 400_000},
		{"one run over the whole budget", 1, maxCachedRunBytes + 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newWriterCache()
			msg := strings.Repeat("x", tt.msgSize)
			for i := range tt.runs {
				r := domain.Run{ID: fmt.Sprint("run-", i), Message: msg, Reply: msg, Spec: []byte(`"` + msg + `"`)}
				args, err := runArgs(r)
				if err != nil {
					t.Fatal(err)
				}
				c.putRun(r, args)
				if c.runBytes > maxCachedRunBytes {
					t.Fatalf("after %d runs the cache holds %d bytes (max %d)", i+1, c.runBytes, maxCachedRunBytes)
				}
			}
			if len(c.runs) > maxCachedRuns {
				t.Fatalf("cache holds %d runs (max %d)", len(c.runs), maxCachedRuns)
			}
			var sum int
			for _, e := range c.runs {
				sum += e.cost
			}
			if sum != c.runBytes {
				t.Fatalf("runBytes %d, entries sum to %d", c.runBytes, sum)
			}
			c.forgetRuns([]string{"run-0", fmt.Sprint("run-", tt.runs-1)})
			c.reset()
			if c.runBytes != 0 || len(c.runs) != 0 {
				t.Fatalf("after reset: %d runs, %d bytes", len(c.runs), c.runBytes)
			}
		})
	}
}
