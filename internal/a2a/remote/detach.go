package remote

import (
	"context"
	"sync"
	"time"
)

// idWait is how long a send's request may outlive its caller to learn
// the task it started, so that the task can be cancelled.
const idWait = 10 * time.Second

// request is the context of a send's request. A caller that stops
// waiting (ctx done) while the request is under way has most likely
// started a task it cannot name yet: the request goes on until the
// answer (or the stream's first event) names the task — at most idWait —
// and then stops, so the task can be cancelled.
type request struct {
	ctx    context.Context
	cancel context.CancelFunc
	after  func() bool

	mu    sync.Mutex
	known bool
	timer *time.Timer
}

func detach(ctx context.Context) *request {
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	r := &request{ctx: rctx, cancel: cancel}
	r.after = context.AfterFunc(ctx, func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.known {
			cancel()
			return
		}
		r.timer = time.AfterFunc(idWait, cancel)
	})
	return r
}

// named says the task is known: the request stops as soon as the caller
// has stopped waiting.
func (r *request) named(caller context.Context) {
	r.mu.Lock()
	r.known = true
	r.mu.Unlock()
	if caller.Err() != nil {
		r.cancel()
	}
}

// end releases the request.
func (r *request) end() {
	r.after()
	r.mu.Lock()
	if r.timer != nil {
		r.timer.Stop()
	}
	r.mu.Unlock()
	r.cancel()
}
