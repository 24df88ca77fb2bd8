package runs

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// ctxModel blocks every call until its context ends and keeps each
// session's call context.
type ctxModel struct {
	mu      sync.Mutex
	ctxs    map[string]context.Context
	started chan string
}

func (m *ctxModel) ctx(key string) context.Context {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.ctxs[key]
}

func (m *ctxModel) Name() string                   { return "ctx" }
func (m *ctxModel) ThinkingLevels(string) []string { return []string{"off"} }
func (m *ctxModel) Complete(ctx context.Context, req domain.ModelRequest) (domain.ModelResponse, error) {
	m.mu.Lock()
	m.ctxs[req.SessionKey] = ctx
	m.mu.Unlock()
	m.started <- req.SessionKey
	<-ctx.Done()
	return domain.ModelResponse{}, ctx.Err()
}

type ctxModels struct{ m *ctxModel }

func (f ctxModels) Resolve(string) (domain.Provider, string, error) { return f.m, "ctx", nil }

// A cancel reaches the parent before the runs it started: were the child
// cancelled first, a parent waiting on it (sessions_send) would wake at the
// child's end and could record one more model reply before its own cancel
// (docs/design.md#runs-lanes-and-waits: a cancelled run records no reply after the cancel).
func TestCancelReachesParentBeforeChildren(t *testing.T) {
	const parentKey, childKey = "agent:main:p", "agent:main:c"
	m := &ctxModel{ctxs: map[string]context.Context{}, started: make(chan string, 4)}
	e := newEnv(t, func(o *Options) { o.Models = ctxModels{m} })
	parent := e.submit(parentKey, "wait", nil)
	child := e.submit(childKey, "work", func(r *domain.Run) { r.ParentRunID = parent.ID })
	deadline := time.After(10 * time.Second)
	for seen := map[string]bool{}; len(seen) < 2; {
		select {
		case k := <-m.started:
			seen[k] = true
		case <-deadline:
			t.Fatalf("model calls started: %v, want both runs running", seen)
		}
	}
	// The moment the child's cancel is called, the parent's call must be
	// cancelled already (checked in the cancelling goroutine, so the
	// answer does not depend on scheduling).
	parentFirst := make(chan bool, 1)
	e.rt.exec.mu.Lock()
	cancelChild := e.rt.exec.active[child.ID]
	e.rt.exec.active[child.ID] = func(cause error) {
		select {
		case parentFirst <- m.ctx(parentKey).Err() != nil:
		default:
		}
		cancelChild(cause)
	}
	e.rt.exec.mu.Unlock()
	if cancelChild == nil {
		t.Fatal("the child run is not active")
	}
	if _, err := e.rt.Cancel(context.Background(), parent.ID); err != nil {
		t.Fatal(err)
	}
	select {
	case first := <-parentFirst:
		if !first {
			t.Fatal("the child was cancelled while its parent still ran: cancel must reach the parent first")
		}
	case <-deadline:
		t.Fatal("the child's cancel was not called")
	}
	for _, id := range []string{parent.ID, child.ID} {
		if r := e.wait(id); r.Status != domain.RunCancelled {
			t.Errorf("run %s = %s, want cancelled", id, r.Status)
		}
	}
}
