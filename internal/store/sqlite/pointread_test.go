package sqlite

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// A point read does not watch its context while it runs, but one already
// done still fails it, and a live one still reads.
func TestPointReadsHonourADoneContext(t *testing.T) {
	st, err := Open(t.Context(), filepath.Join(t.TempDir(), "s.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	sess := domain.Session{Key: "agent:main:main", AgentID: "main", SessionID: domain.NewID(), CreatedAt: 1, UpdatedAt: 1}
	if err := st.Update(t.Context(), func(tx domain.Tx) error { return tx.PutSession(sess) }); err != nil {
		t.Fatal(err)
	}
	done, cancel := context.WithCancel(t.Context())
	cancel()
	reads := []struct {
		name string
		read func(context.Context) error
	}{
		{"GetSession", func(ctx context.Context) error { _, err := st.GetSession(ctx, sess.Key); return err }},
		{"GetRun", func(ctx context.Context) error { _, err := st.GetRun(ctx, "r1"); return err }},
		{"GetRunByIdempotencyKey", func(ctx context.Context) error { _, err := st.GetRunByIdempotencyKey(ctx, "k1"); return err }},
	}
	for _, r := range reads {
		t.Run(r.name, func(t *testing.T) {
			if err := r.read(done); !errors.Is(err, context.Canceled) {
				t.Errorf("with a cancelled context: %v, want context.Canceled", err)
			}
			live, stop := context.WithCancel(t.Context())
			defer stop()
			if err := r.read(live); err != nil && !errors.Is(err, domain.ErrNotFound) {
				t.Errorf("with a live context: %v", err)
			}
		})
	}
}
