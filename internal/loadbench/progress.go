package loadbench

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"time"
)

// progress prints one line a second while a benchmark runs: elapsed time,
// operations done, the rate over the last second and the errors so far.
// It returns when ctx ends, after clearing its line.
func progress(ctx context.Context, w io.Writer, what string, total time.Duration, done, errs *atomic.Int64) {
	if w == nil {
		return
	}
	start := time.Now()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	var last int64
	for {
		select {
		case <-ctx.Done():
			fmt.Fprint(w, "\r\033[K")
			return
		case <-t.C:
			n := done.Load()
			fmt.Fprintf(w, "\r\033[K%3.0fs/%.0fs  %d %s  %d/s  errors %d", time.Since(start).Seconds(), total.Seconds(), n, what, n-last, errs.Load())
			last = n
		}
	}
}
