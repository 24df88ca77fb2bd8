package a2a

import (
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/a2a/wire"
	"github.com/switchboard-go/switchboard/internal/config"
)

// sendTask sends one message as who and returns its task.
func (h *harness) sendTask(t *testing.T, who, msgID, ctxID, text string) *wire.Task {
	t.Helper()
	r := h.rpc(t, who, "main", "SendMessage", map[string]any{"message": userMsg(msgID, ctxID, text)})
	if r.resp.Error != nil {
		t.Fatalf("%s SendMessage in %q: %d %+v", who, ctxID, r.status, r.resp.Error)
	}
	task := decode[wire.SendMessageResponse](t, r.resp.Result).Task
	if task == nil || task.ContextID != ctxID {
		t.Fatalf("%s task in %q = %s", who, ctxID, r.resp.Result)
	}
	return task
}

// TestContextsSeparatedPerCaller: under agent visibility, where two
// session-bound callers may see each other's sessions, reusing another
// caller's contextId opens the reuser's own conversation, and the other's
// tasks do not exist for it (read, cancel, continue, resubscribe); two
// unbound tokens naming one contextId get two conversations too.
func TestContextsSeparatedPerCaller(t *testing.T) {
	eng, _ := openEngineWith(t, t.TempDir(), func(c *config.Config) { c.Tools.Sessions.Visibility = "agent" })
	h := newHarnessOn(t, eng)

	mine := h.sendTask(t, "alice", "m-1", "shared", "alice's secret plan")
	theirs := h.sendTask(t, "bob", "m-2", "shared", "bob joins")
	if mine.Metadata["sessionKey"] == theirs.Metadata["sessionKey"] {
		t.Fatalf("alice and bob share session %v through contextId shared", mine.Metadata["sessionKey"])
	}
	if again := h.sendTask(t, "alice", "m-3", "shared", "alice goes on"); again.Metadata["sessionKey"] != mine.Metadata["sessionKey"] {
		t.Errorf("alice's second message went to %v, not %v", again.Metadata["sessionKey"], mine.Metadata["sessionKey"])
	}
	hist := h.rpc(t, "bob", "main", "GetTask", map[string]any{"id": theirs.ID})
	if got := decode[wire.Task](t, hist.resp.Result); strings.Contains(textOf(got.History[0].Parts), "secret") {
		t.Errorf("bob's task shows alice's words: %s", hist.resp.Result)
	}
	for _, m := range []string{"GetTask", "CancelTask"} {
		if r := h.rpc(t, "bob", "main", m, map[string]any{"id": mine.ID}); r.code() != wire.CodeTaskNotFound {
			t.Errorf("bob %s of alice's task: %d %+v, want TaskNotFound", m, r.status, r.resp.Error)
		}
	}
	m := userMsg("m-4", "shared", "continue")
	m["taskId"] = mine.ID
	if r := h.rpc(t, "bob", "main", "SendMessage", map[string]any{"message": m}); r.code() != wire.CodeTaskNotFound {
		t.Errorf("bob continuing alice's task: %+v, want TaskNotFound", r.resp.Error)
	}
	if _, events := h.stream(t, "bob", "main", "SubscribeToTask", map[string]any{"id": mine.ID}); len(events) != 1 || events[0].Error == nil || events[0].Error.Code != wire.CodeTaskNotFound {
		t.Errorf("bob subscribing to alice's task: %+v, want TaskNotFound", events)
	}
	// alice still reads her own.
	if r := h.rpc(t, "alice", "main", "GetTask", map[string]any{"id": mine.ID}); r.resp.Error != nil {
		t.Errorf("alice GetTask of her task: %+v", r.resp.Error)
	}

	w1 := h.sendTask(t, "writer", "w-1", "shared", "one")
	w2 := h.sendTask(t, "writer2", "w-2", "shared", "two")
	op := h.sendTask(t, "operator", "o-1", "shared", "three")
	keys := map[any]bool{w1.Metadata["sessionKey"]: true, w2.Metadata["sessionKey"]: true, op.Metadata["sessionKey"]: true,
		mine.Metadata["sessionKey"]: true, theirs.Metadata["sessionKey"]: true}
	if len(keys) != 5 {
		t.Errorf("five callers naming contextId shared got sessions %v", keys)
	}
	if op.Metadata["sessionKey"] != SessionKey("main", "shared") {
		t.Errorf("the operator's context moved to %v", op.Metadata["sessionKey"])
	}
}

// TestBoundTokenHoldsConversationsInItsTree: under tree visibility a
// session-bound token opens A2A conversations as sessions of its own
// tree, continues them and reads their tasks; the sessions are children
// of the bound session.
func TestBoundTokenHoldsConversationsInItsTree(t *testing.T) {
	h := newHarness(t)
	first := h.sendTask(t, "bound", "b-1", "mine", "hello")
	if first.Status.State != wire.TaskStateCompleted {
		t.Fatalf("bound task = %+v", first.Status)
	}
	if next := h.sendTask(t, "bound", "b-2", "mine", "again"); next.Metadata["sessionKey"] != first.Metadata["sessionKey"] {
		t.Errorf("the second message went to %v, not %v", next.Metadata["sessionKey"], first.Metadata["sessionKey"])
	}
	if r := h.rpc(t, "bound", "main", "GetTask", map[string]any{"id": first.ID}); r.resp.Error != nil {
		t.Errorf("bound GetTask of its own task: %+v", r.resp.Error)
	}
	key, _ := first.Metadata["sessionKey"].(string)
	s, err := h.eng.Session(t.Context(), key)
	if err != nil || s.SpawnedBy != "agent:main:main" {
		t.Errorf("conversation session %s = %+v, %v; want spawnedBy agent:main:main", key, s, err)
	}
	// Another bound session's conversations stay outside this tree.
	other := h.sendTask(t, "alice", "a-1", "mine", "alice here")
	if r := h.rpc(t, "bound", "main", "GetTask", map[string]any{"id": other.ID}); r.code() != wire.CodeTaskNotFound {
		t.Errorf("bound GetTask of alice's task: %+v", r.resp.Error)
	}
	if r := h.rpc(t, "bound", "research", "SendMessage", map[string]any{"message": userMsg("b-3", "x", "hi")}); r.status != http.StatusForbidden {
		t.Errorf("bound send to another agent under tree: %d %+v, want 403", r.status, r.resp.Error)
	}
}
