package storetest

import (
	"encoding/json"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// NUL checks that text a model or an import produced is stored even when
// it holds U+0000, which user input may not (api.Limit.CheckChars) but a
// model reply, a tool result or an imported transcript may. text says what
// a raw text column gives back for a stored string: the exact bytes on
// SQLite, U+FFFD for each NUL on PostgreSQL, whose text type cannot hold
// U+0000 (docs/storage.md). Message bodies, session rows and JSON fields
// keep the exact bytes on every store. It is not in Run because the
// expectation differs by store: each backend calls it with its own.
func NUL(t *testing.T, st domain.Store, text func(string) string) {
	t.Helper()
	const key, sid = "agent:main:nul", "s-nul"
	const nul = "alpha beta\x00gamma"
	ctx := ctxT(t)

	run := fullRun("run-nul")
	run.SessionKey, run.SessionID, run.IdempotencyKey = key, sid, ""
	run.Message, run.Reply, run.Error = "ask\x00", nul, "failed\x00"
	run.Spec = json.RawMessage(`{"note":"a\u0000b"}`)
	item := fullOutbox("idem-nul")
	item.LastError, item.Payload = "refused\x00", json.RawMessage(`{"text":"a\u0000b"}`)
	update(t, st, func(tx domain.Tx) error {
		if err := tx.PutSession(domain.Session{Key: key, AgentID: "main", SessionID: sid, UpdatedAt: 1,
			DisplayName: "title\x00"}); err != nil {
			return err
		}
		if _, err := tx.AppendMessages(key, sid, []domain.Message{
			{Role: domain.RoleAssistant, Content: domain.TextContent(nul), Timestamp: 1},
		}); err != nil {
			return err
		}
		if _, _, err := tx.CreateRun(run); err != nil {
			return err
		}
		_, _, err := tx.EnqueueOutbox(item)
		return err
	})

	if s, err := st.GetSession(ctx, key); err != nil || s.DisplayName != "title\x00" {
		t.Errorf("GetSession: displayName %q, %v; want the exact bytes (the row is bytea)", s.DisplayName, err)
	}
	msgs := readMsgs(t, st, key, domain.MessageQuery{})
	if got := textsOf(msgs); len(got) != 1 || got[0] != nul {
		t.Errorf("ReadMessages: %q; want [%q] (the body keeps the exact bytes)", got, nul)
	}
	if hits := search(t, st, domain.MessageSearch{Words: []string{"alpha"}, Limit: 5}); len(hits) != 1 {
		t.Errorf("SearchMessages(alpha): %d hits; want the message", len(hits))
	}
	got, err := st.GetRun(ctx, run.ID)
	if err != nil {
		t.Fatalf("GetRun: %v", err)
	}
	if got.Message != text(run.Message) || got.Reply != text(run.Reply) || got.Error != text(run.Error) {
		t.Errorf("GetRun: message %q reply %q error %q; want %q %q %q", got.Message, got.Reply, got.Error,
			text(run.Message), text(run.Reply), text(run.Error))
	}
	if !jsonEqual(got.Spec, run.Spec) {
		t.Errorf("GetRun: spec %s; want %s", got.Spec, run.Spec)
	}
	out := listOutbox(t, st, domain.OutboxQuery{SessionKey: item.SessionKey})
	if len(out) != 1 || out[0].LastError != text(item.LastError) || !jsonEqual(out[0].Payload, item.Payload) {
		t.Errorf("ListOutbox: %+v; want lastError %q and payload %s", out, text(item.LastError), item.Payload)
	}
}

// jsonEqual reports whether a and b hold the same JSON value.
func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return diff(x, y) == ""
}
