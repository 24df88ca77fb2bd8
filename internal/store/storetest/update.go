package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// writeEverything writes one of each kind of row for key, the way a run's
// completion does.
func writeEverything(tx domain.Tx, key string) error {
	if err := tx.PutSession(domain.Session{Key: key, AgentID: "main", SessionID: "s-" + key, UpdatedAt: 1}); err != nil {
		return err
	}
	if _, err := tx.AppendMessages(key, "s-"+key, []domain.Message{userMsg("hi", 1), userMsg("there", 2)}); err != nil {
		return err
	}
	if _, _, err := tx.CreateRun(domain.Run{ID: "run-" + key, SessionKey: key, Status: domain.RunOK, IdempotencyKey: "idem-" + key}); err != nil {
		return err
	}
	if _, _, err := tx.EnqueueOutbox(domain.OutboxItem{IdempotencyKey: "out-" + key, SessionKey: key}); err != nil {
		return err
	}
	return nil
}

// requireWritten checks whether writeEverything's rows for key exist.
func requireWritten(t *testing.T, st domain.Store, key string, want bool) {
	t.Helper()
	ctx := ctxT(t)
	_, sessErr := st.GetSession(ctx, key)
	msgs, err := st.ReadMessages(ctx, key, domain.MessageQuery{SessionID: "s-" + key})
	if err != nil {
		t.Fatalf("ReadMessages: %v", err)
	}
	_, runErr := st.GetRun(ctx, "run-"+key)
	_, idemErr := st.GetRunByIdempotencyKey(ctx, "idem-"+key)
	out, err := st.ListOutbox(ctx, domain.OutboxQuery{SessionKey: key})
	if err != nil {
		t.Fatalf("ListOutbox: %v", err)
	}
	got := map[string]bool{
		"session":  sessErr == nil,
		"messages": len(msgs) == 2,
		"run":      runErr == nil,
		"run key":  idemErr == nil,
		"outbox":   len(out) == 1,
	}
	for what, ok := range got {
		if ok != want {
			t.Errorf("%s: %s written = %v, want %v", key, what, ok, want)
		}
	}
	if !want && len(msgs) != 0 {
		t.Errorf("%s: %d messages of a rolled-back Update are visible", key, len(msgs))
	}
}

func testUpdateAtomic(t *testing.T, st domain.Store) {
	err := st.Update(ctxT(t), func(tx domain.Tx) error {
		if err := writeEverything(tx, "agent:main:failed"); err != nil {
			return err
		}
		return fmt.Errorf("wrapped: %w", errNope)
	})
	requireErrorIs(t, err, errNope, "Update whose fn fails")
	requireWritten(t, st, "agent:main:failed", false)

	// The same writes succeed afterwards: the failed fn left nothing behind,
	// not even a used idempotency key or message id.
	update(t, st, func(tx domain.Tx) error { return writeEverything(tx, "agent:main:failed") })
	requireWritten(t, st, "agent:main:failed", true)
	msgs := readMsgs(t, st, "agent:main:failed", domain.MessageQuery{})
	if len(msgs) != 2 || msgs[0].Seq != 1 {
		t.Errorf("messages after a failed then a good Update: seqs %v, want [1 2]", seqsOf(msgs))
	}
}

func testUpdateConcurrentFailures(t *testing.T, st domain.Store) {
	ctx := ctxT(t)
	const n = 32
	start := make(chan struct{})
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			errs[i] = st.Update(ctx, func(tx domain.Tx) error {
				key := fmt.Sprintf("agent:main:w%02d", i)
				if err := writeEverything(tx, key); err != nil {
					return err
				}
				switch i % 4 {
				case 1:
					return errNope
				case 3:
					// A store error, returned by fn like any other.
					return tx.PutRun(domain.Run{ID: "run-missing"})
				}
				return nil
			})
		})
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		key := fmt.Sprintf("agent:main:w%02d", i)
		switch i % 4 {
		case 1:
			requireErrorIs(t, err, errNope, key)
		case 3:
			requireErrorIs(t, err, domain.ErrNotFound, key)
		default:
			if err != nil {
				t.Errorf("%s: Update: %v", key, err)
			}
		}
		requireWritten(t, st, key, i%2 == 0)
	}
}

func testTxSeesOwnWrites(t *testing.T, st domain.Store) {
	putSessions(t, st, domain.Session{Key: "agent:main:gone", AgentID: "main", UpdatedAt: 1})
	update(t, st, func(tx domain.Tx) error {
		want := domain.Session{Key: "agent:main:main", AgentID: "main", SessionID: "s1", Label: "fresh", UpdatedAt: 2}
		if err := tx.PutSession(want); err != nil {
			return err
		}
		got, err := tx.GetSession(want.Key)
		if err != nil {
			return fmt.Errorf("GetSession after PutSession in the same fn: %w", err)
		}
		if d := diff(want, got); d != "" {
			return fmt.Errorf("GetSession after PutSession (-want +got):\n%s", d)
		}
		if err := tx.DeleteSession("agent:main:gone"); err != nil {
			return err
		}
		if _, err := tx.GetSession("agent:main:gone"); !errors.Is(err, domain.ErrNotFound) {
			return fmt.Errorf("GetSession after DeleteSession in the same fn: %v, want ErrNotFound", err)
		}
		// Appends in one fn chain on each other.
		a, err := tx.AppendMessages(want.Key, "s1", []domain.Message{userMsg("a", 1)})
		if err != nil {
			return err
		}
		b, err := tx.AppendMessages(want.Key, "s1", []domain.Message{userMsg("b", 2)})
		if err != nil {
			return err
		}
		if b[0].Seq != a[0].Seq+1 || b[0].ParentID != a[0].ID {
			return fmt.Errorf("second append in one fn: seq %d parent %q, want %d and %q", b[0].Seq, b[0].ParentID, a[0].Seq+1, a[0].ID)
		}
		return nil
	})
}

func testTxAfterReturn(t *testing.T, st domain.Store) {
	var leaked domain.Tx
	update(t, st, func(tx domain.Tx) error {
		leaked = tx
		return nil
	})
	if err := leaked.PutSession(domain.Session{Key: "agent:main:late", AgentID: "main"}); err == nil {
		t.Error("PutSession on a Tx after its fn returned: got nil error")
	}
	if _, err := leaked.GetSession("agent:main:late"); err == nil {
		t.Error("GetSession on a Tx after its fn returned: got nil error")
	}
	if _, err := leaked.AppendMessages("agent:main:late", "s1", []domain.Message{userMsg("x", 1)}); err == nil {
		t.Error("AppendMessages on a Tx after its fn returned: got nil error")
	}
	if _, err := st.GetSession(ctxT(t), "agent:main:late"); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("a write through a stale Tx is visible: GetSession = %v", err)
	}
}

func testUpdateCancelledContext(t *testing.T, st domain.Store) {
	ctx, cancel := context.WithCancel(ctxT(t))
	cancel()
	called := false
	err := st.Update(ctx, func(tx domain.Tx) error {
		called = true
		return tx.PutSession(domain.Session{Key: "agent:main:main", AgentID: "main"})
	})
	requireErrorIs(t, err, context.Canceled, "Update with a cancelled context")
	if called {
		t.Error("fn ran although ctx was cancelled before Update")
	}
	if _, err := st.GetSession(ctxT(t), "agent:main:main"); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("GetSession after a cancelled Update = %v, want ErrNotFound", err)
	}
}

func testClosed(t *testing.T, st domain.Store) {
	putSessions(t, st, domain.Session{Key: "agent:main:main", AgentID: "main", SessionID: "s1", UpdatedAt: 1})
	if err := st.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	ctx := ctxT(t)
	called := false
	err := st.Update(ctx, func(domain.Tx) error { called = true; return nil })
	requireErrorIs(t, err, domain.ErrClosed, "Update after Close")
	if called {
		t.Error("fn ran after Close")
	}
	reads := map[string]func() error{
		"GetSession":       func() error { _, err := st.GetSession(ctx, "agent:main:main"); return err },
		"FindSessionsByID": func() error { _, err := st.FindSessionsByID(ctx, "s1"); return err },
		"ListSessions":     func() error { _, err := st.ListSessions(ctx, domain.SessionQuery{}); return err },
		"CountSessions":    func() error { _, err := st.CountSessions(ctx, domain.SessionQuery{}); return err },
		"ReadMessages":     func() error { _, err := st.ReadMessages(ctx, "agent:main:main", domain.MessageQuery{}); return err },
		"GetRun":           func() error { _, err := st.GetRun(ctx, "r"); return err },
		"GetRunByIdem":     func() error { _, err := st.GetRunByIdempotencyKey(ctx, "k"); return err },
		"ListRuns":         func() error { _, err := st.ListRuns(ctx, domain.RunQuery{}); return err },
		"ListOutbox":       func() error { _, err := st.ListOutbox(ctx, domain.OutboxQuery{}); return err },
	}
	for name, read := range reads {
		requireErrorIs(t, read(), domain.ErrClosed, name+" after Close")
	}
	if err := st.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// testInvalidJSON checks that JSON fields holding invalid JSON are refused
// with an error instead of being stored (or panicking).
func testInvalidJSON(t *testing.T, st domain.Store) {
	bad := json.RawMessage(`{"unterminated":`)
	tests := map[string]func(tx domain.Tx) error{
		"Run.Spec": func(tx domain.Tx) error {
			_, _, err := tx.CreateRun(domain.Run{ID: "run-1", SessionKey: "agent:main:main", Status: domain.RunQueued, Spec: bad})
			return err
		},
		"OutboxItem.Payload": func(tx domain.Tx) error {
			_, _, err := tx.EnqueueOutbox(domain.OutboxItem{IdempotencyKey: "k", SessionKey: "agent:main:main", Payload: bad})
			return err
		},
		"toolCall arguments": func(tx domain.Tx) error {
			_, err := tx.AppendMessages("agent:main:main", "s1", []domain.Message{{Role: domain.RoleAssistant,
				Content: domain.BlockContent(domain.Block{Type: domain.BlockToolCall, ID: "c", Name: "x", Arguments: bad})}})
			return err
		},
		"Message.Details": func(tx domain.Tx) error {
			_, err := tx.AppendMessages("agent:main:main", "s1", []domain.Message{{Role: domain.RoleToolResult,
				Content: domain.TextContent("x"), Details: bad}})
			return err
		},
	}
	for name, fn := range tests {
		if err := st.Update(ctxT(t), fn); err == nil {
			t.Errorf("%s with invalid JSON: got nil error", name)
		}
	}
	if msgs := readMsgs(t, st, "agent:main:main", domain.MessageQuery{SessionID: "s1"}); len(msgs) != 0 {
		t.Errorf("%d messages with invalid JSON stored", len(msgs))
	}
}
