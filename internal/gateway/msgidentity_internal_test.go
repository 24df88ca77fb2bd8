package gateway

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestMessageMeta: a stored message's identity in OpenClaw's names — the
// user message that started a run under "<run>:user", an answer or tool
// result under its run, a message no run wrote by id and seq alone, and
// nothing for a message without any.
func TestMessageMeta(t *testing.T) {
	cases := []struct {
		name string
		m    domain.Message
		id   string
		run  string
		want string
	}{
		{"user of a run", domain.Message{Role: domain.RoleUser, Seq: 3}, "m3", "key-1", `{"id":"m3","idempotencyKey":"key-1:user","seq":3}`},
		{"answer", domain.Message{Role: domain.RoleAssistant, Seq: 4}, "m4", "key-1", `{"id":"m4","runId":"key-1","seq":4}`},
		{"tool result", domain.Message{Role: domain.RoleToolResult, Seq: 5}, "m5", "r9", `{"id":"m5","runId":"r9","seq":5}`},
		{"no run", domain.Message{Role: domain.RoleUser, Seq: 1}, "m1", "", `{"id":"m1","seq":1}`},
		{"nothing", domain.Message{Role: domain.RoleUser}, "", "", `null`},
	}
	for _, c := range cases {
		b, err := json.Marshal(messageMeta(c.m, c.id, c.run))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != c.want {
			t.Errorf("%s: %s, want %s", c.name, b, c.want)
		}
	}
}

// TestIdentifiedHistoryMessages: chat.history's messages keep their own
// fields and `id` and carry `__openclaw`, their runs named as the run's
// events name them (its chat.send key when it has one).
func TestIdentifiedHistoryMessages(t *testing.T) {
	s := &Server{aliases: newRunAliases()}
	s.aliases.add("run-1", "ui-key")
	msgs := []api.HistoryMessage{
		{ID: "a1", Message: domain.Message{Seq: 1, RunID: "run-1", Role: domain.RoleUser, Content: domain.TextContent("hi"), Timestamp: 5}},
		{ID: "a2", Message: domain.Message{Seq: 2, RunID: "run-1", Role: domain.RoleAssistant, Content: domain.TextContent("hello")}},
		{ID: "a3", Message: domain.Message{Seq: 3, RunID: "run-2", Role: domain.RoleAssistant, Content: domain.TextContent("other")}},
	}
	b, err := json.Marshal(s.identifiedMessages(msgs))
	if err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := []struct{ id, key, run string }{{"a1", "ui-key:user", ""}, {"a2", "", "ui-key"}, {"a3", "", "run-2"}}
	for i, w := range want {
		meta, _ := got[i]["__openclaw"].(map[string]any)
		if got[i]["id"] != w.id || meta["id"] != w.id || meta["seq"] != float64(i+1) {
			t.Errorf("message %d: %s", i, b)
		}
		if k, _ := meta["idempotencyKey"].(string); k != w.key {
			t.Errorf("message %d: idempotencyKey %q, want %q", i, k, w.key)
		}
		if r, _ := meta["runId"].(string); r != w.run {
			t.Errorf("message %d: runId %q, want %q", i, r, w.run)
		}
	}
	if got[0]["content"] != "hi" || got[0]["role"] != "user" || got[0]["timestamp"] != float64(5) {
		t.Errorf("the message's own fields changed: %s", b)
	}
}

// TestRunFinals: the answer a run's chat final carries is the run's last
// stored assistant message without tool calls whose text is the reply;
// a tool-call step, another run's answer or an answer whose text is not
// the reply is not it, and a run's answer is given once.
func TestRunFinals(t *testing.T) {
	msg := func(run, id, text string, calls bool) domain.Event {
		m := domain.Message{ID: id, Seq: 1, RunID: run, Role: domain.RoleAssistant, Content: domain.TextContent(text)}
		if calls {
			m.Content = domain.BlockContent(domain.TextBlock(text), domain.Block{Type: domain.BlockToolCall, ID: "c1", Name: "t"})
		}
		return domain.Event{Kind: domain.EventMessage, Message: &m}
	}
	f := runFinals{}
	f.observe(msg("r1", "s1", "looking", true))
	f.observe(msg("r1", "s2", "done", false))
	f.observe(msg("r2", "s3", "other", false))
	f.observe(msg("r3", "s4", "step", true))
	f.observe(domain.Event{Kind: domain.EventMessage, Message: &domain.Message{ID: "u1", RunID: "r1", Role: domain.RoleUser}})
	if m := f.take(domain.Run{ID: "r1", Reply: "done"}); m == nil || m.ID != "s2" {
		t.Errorf("r1's answer: %+v, want s2", m)
	}
	if m := f.take(domain.Run{ID: "r1", Reply: "done"}); m != nil {
		t.Errorf("r1's answer given twice: %+v", m)
	}
	if m := f.take(domain.Run{ID: "r2", Reply: "changed"}); m != nil {
		t.Errorf("an answer whose text is not the reply: %+v", m)
	}
	if m := f.take(domain.Run{ID: "r3", Reply: "step"}); m != nil {
		t.Errorf("a tool-call step taken for the answer: %+v", m)
	}
	if len(f) != 0 {
		t.Errorf("runs left behind: %v", f)
	}
}

// TestFinalAndSessionMessageCarryIdentity: a run's chat final carries the
// stored answer's identity under the run's name, and session.message
// carries its message's (OpenClaw's messageId and messageSeq beside it).
func TestFinalAndSessionMessageCarryIdentity(t *testing.T) {
	s := &Server{}
	r := domain.Run{ID: "ui-key", SessionKey: "agent:main:a", Status: domain.RunOK, Reply: "done", EndedAt: 9}
	final := domain.Message{ID: "s2", Seq: 7, RunID: "run-1", Role: domain.RoleAssistant, Content: domain.TextContent("done")}
	out := s.mapEvent(domain.Event{Kind: domain.EventRunEnd, Run: &r, Message: &final, TS: 9})
	if len(out) != 2 || out[1].name != "chat" {
		t.Fatalf("run end events: %+v", out)
	}
	b, _ := json.Marshal(out[1].payload)
	if !strings.Contains(string(b), `"message":{"__openclaw":{"id":"s2","runId":"ui-key","seq":7},"content":`) {
		t.Errorf("chat final: %s", b)
	}
	out = s.mapEvent(domain.Event{Kind: domain.EventRunEnd, Run: &r, TS: 9})
	if b, _ := json.Marshal(out[1].payload); strings.Contains(string(b), "__openclaw") {
		t.Errorf("a final without a known answer has an identity: %s", b)
	}
	user := domain.Message{ID: "s1", Seq: 6, RunID: "ui-key", Role: domain.RoleUser, Content: domain.TextContent("hi")}
	b, _ = json.Marshal(sessionMessageEvent("agent:main:a", user, 9).payload)
	for _, want := range []string{`"__openclaw":{"id":"s1","idempotencyKey":"ui-key:user","seq":6}`, `"messageId":"s1"`, `"messageSeq":6`, `"runId":"ui-key"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("session.message lacks %s: %s", want, b)
		}
	}
}
