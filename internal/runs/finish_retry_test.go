package runs

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/sqlite"
)

// failingStore refuses the next n writes with err, without running them.
type failingStore struct {
	*sqlite.Store
	n       atomic.Int32
	err     error
	refused atomic.Int32
}

func (s *failingStore) Update(ctx context.Context, fn func(tx domain.Tx) error) error {
	if s.n.Add(-1) >= 0 {
		s.refused.Add(1)
		return s.err
	}
	return s.Store.Update(ctx, fn)
}

// endWithFailingWrites runs "block" on a runtime whose store refuses the
// writes after the model call starts with err, n times.
func endWithFailingWrites(t *testing.T, err error, n int32) (domain.Run, *env, *failingStore) {
	t.Helper()
	fs := &failingStore{err: err}
	e := newEnv(t, func(o *Options) {
		fs.Store = o.Store.(*sqlite.Store)
		o.Store = fs
	})
	r := e.submit("agent:main:w", "block", nil)
	select {
	case <-e.model.started:
	case <-time.After(10 * time.Second):
		t.Fatal("the model was not called")
	}
	fs.n.Store(n)
	close(e.model.release)
	return e.wait(r.ID), e, fs
}

// A run's end is written even when the store cannot write for a while:
// a transient failure is retried until the record commits, and the
// answer is stored once.
func TestRunEndRetriedWhileStoreUnavailable(t *testing.T) {
	got, e, fs := endWithFailingWrites(t, domain.Errorf(domain.CodeUnavailable, "disk full"), 2)
	if got.Status != domain.RunOK {
		t.Fatalf("run = %s %q, want ok once the store writes again", got.Status, got.Error)
	}
	if fs.refused.Load() != 2 {
		t.Fatalf("refused writes = %d, want 2", fs.refused.Load())
	}
	msgs, err := e.st.ReadMessages(context.Background(), "agent:main:w", domain.MessageQuery{})
	if err != nil {
		t.Fatal(err)
	}
	answers := 0
	for _, m := range msgs {
		if m.Role == domain.RoleAssistant && m.Content.Text() == "echo: block" {
			answers++
		}
	}
	if answers != 1 {
		t.Fatalf("answers stored = %d, want 1", answers)
	}
}

// A write failure that retrying cannot fix ends the run with that
// failure, so no run is left running.
func TestRunEndRecordsPermanentWriteFailure(t *testing.T) {
	got, _, _ := endWithFailingWrites(t, errors.New("constraint failed"), 1)
	if got.Status != domain.RunError || !strings.Contains(got.Error, "recording the end of the run failed: constraint failed") {
		t.Fatalf("run = %s %q, want an error naming the failed write", got.Status, got.Error)
	}
}
