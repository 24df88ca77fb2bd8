package transcript

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestSharedRepairNoDuplicates: three "replicas" (Mirrors on one
// directory, each write through its own descriptor and flock, as separate
// processes do) work on one session at once: one appends the session's
// messages batch by batch as its run commits them, two repair the file
// from the store (every message so far) again and again. Each message
// ends up in the file once, in order, whichever wrote it.
func TestSharedRepairNoDuplicates(t *testing.T) {
	dir := t.TempDir()
	now := func() time.Time { return time.UnixMilli(1) }
	var ms []*Mirror
	for range 3 {
		m := New(dir, now)
		m.Shared = true
		t.Cleanup(func() { m.Close() })
		ms = append(ms, m)
	}
	var ids []string
	for i := range 200 {
		ids = append(ids, fmt.Sprintf("m%03d", i))
	}
	all := msgsWithIDs(ids...)
	// committed is how many messages the store holds; the appender's
	// batch of 5 is committed before it is appended.
	var mu sync.Mutex
	committed := 0
	var wg sync.WaitGroup
	done := make(chan struct{})
	errs := make(chan error, 3)
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		for i := 0; i < len(all); i += 5 {
			mu.Lock()
			committed = i + 5
			mu.Unlock()
			if err := ms[0].Append("main", "s1", all[i:i+5]); err != nil {
				errs <- err
				return
			}
		}
	}()
	for _, m := range ms[1:] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				n := committed
				mu.Unlock()
				if _, err := m.Reconcile("main", "s1", all[:n]); err != nil {
					errs <- err
					return
				}
				select {
				case <-done:
					return
				default:
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got := fileIDs(t, ms[0].Path("main", "s1")); !slices.Equal(got, ids) {
		t.Fatalf("file holds %d messages (want %d, each once, in order): %v", len(got), len(ids), got)
	}
	if !ms[1].SafeForReplicas() || New(dir, now).SafeForReplicas() {
		t.Error("SafeForReplicas follows Shared")
	}
}
