package mcpserver

import (
	"context"
	"sync"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// calls owns the tool calls in flight on one transport (one stdio session,
// or every HTTP request of a Server), so that stopping the transport
// cancels them and waits for them: no handler outlives its owner.
type calls struct {
	ctx    context.Context
	cancel context.CancelFunc

	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

// newCalls returns an owner whose calls also end when parent does.
func newCalls(parent context.Context) *calls {
	ctx, cancel := context.WithCancel(parent)
	return &calls{ctx: ctx, cancel: cancel}
}

// begin registers a call. The returned context ends when ctx ends or the
// owner closes; done must be called when the call returns. begin fails
// once close has started.
func (c *calls) begin(ctx context.Context) (context.Context, func(), error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, nil, domain.Errorf(domain.CodeUnavailable, "MCP server is shutting down")
	}
	c.wg.Add(1)
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(c.ctx, cancel)
	return ctx, func() {
		stop()
		cancel()
		c.wg.Done()
	}, nil
}

// close refuses new calls, cancels the running ones and waits for them to
// return, or for ctx to end.
func (c *calls) close(ctx context.Context) error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.cancel()
	done := make(chan struct{})
	go func() {
		c.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
