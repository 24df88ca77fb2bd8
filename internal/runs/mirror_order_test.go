package runs

import (
	"context"
	"log/slog"
	"sync"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/transcript"
)

// commitEach stores texts in the session's transcript, one transaction
// each (as a run's final answer and an Inject commit apart), and returns
// the stored messages.
func commitEach(t *testing.T, st interface {
	Update(context.Context, func(domain.Tx) error) error
}, key string, texts ...string) []domain.Message {
	t.Helper()
	var out []domain.Message
	for _, text := range texts {
		err := st.Update(context.Background(), func(tx domain.Tx) error {
			if _, err := tx.GetSession(key); err != nil {
				if err := tx.PutSession(domain.Session{Key: key, AgentID: "main", SessionID: "sid-" + key, Kind: "other", UpdatedAt: 1}); err != nil {
					return err
				}
			}
			stored, err := tx.AppendMessages(key, "sid-"+key, []domain.Message{{Role: "user", Content: domain.TextContent(text), Timestamp: 1}})
			out = append(out, stored...)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestMirrorWriterOrder: the store's order reaches the file even when the
// jobs do not arrive in it. m1 and m3 are a run's messages (inbound and
// final), m2 an Inject that committed between them; the cases are the two
// ways its job can fall behind the run's.
func TestMirrorWriterOrder(t *testing.T) {
	cases := []struct {
		name string
		run  func(w *mirrorWriter, s mirrorSession, m []domain.Message)
	}{
		{
			// Inject saw the lane idle after the run's job was queued: its
			// append comes after the run's, which carries a later message.
			name: "late append",
			run: func(w *mirrorWriter, s mirrorSession, m []domain.Message) {
				w.append(s.agentID, s.key, s.sessionID, []domain.Message{m[0], m[2]}, m[2].Seq)
				w.append(s.agentID, s.key, s.sessionID, m[1:2], m[1].Seq)
			},
		},
		{
			// Inject saw the lane busy (the next run's), but the run that
			// carried the later message had been written already.
			name: "behind after the write",
			run: func(w *mirrorWriter, s mirrorSession, m []domain.Message) {
				w.write(mirrorJob{s: s, msgs: []domain.Message{m[0], m[2]}, upTo: m[2].Seq})
				if w.behind(s.agentID, s.key, s.sessionID, m[1].Seq, m[1].Seq) {
					w.reconcile(s.agentID, s.key, s.sessionID, m[1].Seq)
				}
			},
		},
		{
			name: "in order",
			run: func(w *mirrorWriter, s mirrorSession, m []domain.Message) {
				w.append(s.agentID, s.key, s.sessionID, m[0:1], m[0].Seq)
				w.append(s.agentID, s.key, s.sessionID, m[1:2], m[1].Seq)
				w.append(s.agentID, s.key, s.sessionID, m[2:3], m[2].Seq)
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			st := openStore(t, dir)
			defer st.Close()
			key := "agent:main:c1"
			m := commitEach(t, st, key, "m1", "m2", "m3")
			mirror := transcript.New(dir, nil)
			w := newMirrorWriter(mirror, st, slog.New(slog.DiscardHandler))
			w.Start()
			tc.run(w, mirrorSession{"main", key, "sid-" + key}, m)
			w.Stop()
			requireMirrorEqualsStore(t, st, mirror, key, "main", "sid-"+key)
		})
	}
}

// TestInjectBesideRunsKeepsMirrorOrder: gateway `send`s (Inject) beside
// a session's runs, as the fault test's mixed load does. However their
// commits and the runs' interleave, after Close the file holds exactly the
// store's messages in the store's order.
func TestInjectBesideRunsKeepsMirrorOrder(t *testing.T) {
	dir := t.TempDir()
	st := openStore(t, dir)
	defer st.Close()
	mirror := transcript.New(dir, nil)
	rt, _ := startOn(t, st, mirror)
	e := &env{t: t, rt: rt, st: st}
	const key = "agent:main:c1"
	e.wait(e.submit(key, "first", nil).ID)
	const n = 30
	errs := make(chan error, n)
	go func() {
		for i := 0; i < n; i++ {
			_, err := rt.Inject(context.Background(), key, []domain.Message{{Role: "assistant", Content: domain.TextContent("sent")}},
				func(tx domain.Tx) (domain.Session, error) { return tx.GetSession(key) })
			errs <- err
		}
	}()
	var ids []string
	for i := 0; i < n; i++ {
		ids = append(ids, e.submit(key, "hi", nil).ID)
	}
	for _, id := range ids {
		e.wait(id)
	}
	for i := 0; i < n; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if err := rt.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	requireMirrorEqualsStore(t, st, mirror, key, "main", "sid-"+key)
}

// hookedMirror runs during, once, before its first Reconcile writes: a
// commit elsewhere that lands while the writer is busy with a file.
type hookedMirror struct {
	*transcript.Mirror
	once   sync.Once
	during func()
}

func (h *hookedMirror) Reconcile(agentID, sessionID string, msgs []domain.Message) (transcript.SyncResult, error) {
	h.once.Do(h.during)
	return h.Mirror.Reconcile(agentID, sessionID, msgs)
}

// TestBehindDuringReconcileIsKept: m1 was injected beside run A (whose
// final answer is m2), so A's job is a reconcile. While it is written,
// run B stores its inbound m3 and a send injects m4 beside it (behind).
// A's reconcile ends with everything up to m2 written; it must not clear
// the mark m4 left, or B's job (m3, m5) is appended as it is and m4 is
// never written — the fault test's "mirror has 18 messages, store 20".
func TestBehindDuringReconcileIsKept(t *testing.T) {
	dir := t.TempDir()
	st := openStore(t, dir)
	defer st.Close()
	const key = "agent:main:c1"
	m := commitEach(t, st, key, "m1", "m2", "m3", "m4", "m5")
	s := mirrorSession{"main", key, "sid-" + key}
	mirror := &hookedMirror{Mirror: transcript.New(dir, nil)}
	w := newMirrorWriter(mirror, st, slog.New(slog.DiscardHandler))
	w.Start()
	mirror.during = func() { w.behind(s.agentID, s.key, s.sessionID, m[3].Seq, m[3].Seq) }
	w.behind(s.agentID, s.key, s.sessionID, m[0].Seq, m[0].Seq)
	w.append(s.agentID, s.key, s.sessionID, m[1:2], m[1].Seq)
	w.append(s.agentID, s.key, s.sessionID, []domain.Message{m[2], m[4]}, m[4].Seq)
	w.Stop()
	requireMirrorEqualsStore(t, st, mirror.Mirror, key, "main", "sid-"+key)
}
