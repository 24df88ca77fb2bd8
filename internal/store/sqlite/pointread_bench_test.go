package sqlite

import (
	"context"
	"testing"
)

// BenchmarkGetSessionCancellable reads one session row by key with a
// context that can be cancelled, as a request's is.
func BenchmarkGetSessionCancellable(b *testing.B) {
	st := openBench(b)
	fillSessions(b, st, 1000)
	ctx, cancel := context.WithCancel(b.Context())
	defer cancel()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := st.GetSession(ctx, "agent:a7:sub:00000007"); err != nil {
			b.Fatal(err)
		}
	}
}
