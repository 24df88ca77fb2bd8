package engine

import "sync"

// atOnce runs call(i) for i in [0, n) on n goroutines released together
// behind a barrier, and returns once every call has: the race tests' way
// of making calls arrive at once.
func atOnce(n int, call func(i int)) {
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			ready.Done()
			<-start
			call(i)
		}()
	}
	ready.Wait()
	close(start)
	done.Wait()
}
