package gateway

import (
	"fmt"
	"sync"
	"testing"
)

// TestSubscribedSessionsCapHoldsUnderConcurrentRequests proves the
// per-connection cap on subscribed sessions holds when a connection sends
// its subscribe requests at once (they are served concurrently): the count
// and the add are one step under the fanout's lock.
func TestSubscribedSessionsCapHoldsUnderConcurrentRequests(t *testing.T) {
	const max, tries = 100, 300
	f := newFanout()
	sub, _ := f.subscribe(64)
	oks := make([]bool, tries)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range tries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, oks[i] = f.subscribeMessagesWithin(sub, fmt.Sprintf("agent:main:s%d", i), max)
		}()
	}
	close(start)
	wg.Wait()
	n := 0
	for _, ok := range oks {
		if ok {
			n++
		}
	}
	if n != max || len(sub.keys) != max {
		t.Fatalf("%d subscribes accepted, %d sessions subscribed; want %d and %d", n, len(sub.keys), max, max)
	}
}
