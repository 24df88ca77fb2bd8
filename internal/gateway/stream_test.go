package gateway_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/config"
)

// streamRule answers "stream…" messages in pieces of 4 characters, 15 ms
// apart.
func streamRule(reply string) config.ScriptRule {
	return config.ScriptRule{When: config.ScriptWhen{Message: "^stream"}, Reply: &reply, ChunkChars: 4, ChunkMs: 15}
}

type chatEvent struct {
	RunID   string `json:"runId"`
	State   string `json:"state"`
	Message struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"message"`
}

func (c chatEvent) text() string {
	var b strings.Builder
	for _, p := range c.Message.Content {
		b.WriteString(p.Text)
	}
	return b.String()
}

// TestStreamedReply: a streaming model's pieces reach a client as chat
// deltas (the text so far, growing) and agent assistant deltas before the
// chat final, and the transcript holds the answer once, whole.
func TestStreamedReply(t *testing.T) {
	const answer = "the quick brown fox jumps over the lazy dog"
	e := newEnv(t, envOptions{rules: []config.ScriptRule{streamRule(answer)}})
	w, _ := e.connect(t, nil)
	var ack struct{ RunID string }
	w.ok("agent", map[string]any{"message": "stream please", "sessionKey": "agent:main:s1", "idempotencyKey": "s1"}, &ack)

	var deltas []string
	var assistantPieces strings.Builder
	for {
		f := w.wait(func(f frame) bool { return f.Event == "chat" || f.Event == "agent" })
		if f.Event == "agent" {
			var a struct {
				RunID  string `json:"runId"`
				Stream string `json:"stream"`
				Data   struct {
					Text  string  `json:"text"`
					Delta *string `json:"delta"`
				} `json:"data"`
			}
			f.decode(t, &a)
			if a.RunID == ack.RunID && a.Stream == "assistant" && a.Data.Delta != nil {
				assistantPieces.WriteString(*a.Data.Delta)
				if !strings.HasSuffix(a.Data.Text, *a.Data.Delta) {
					t.Errorf("agent assistant text %q does not end with its delta %q", a.Data.Text, *a.Data.Delta)
				}
			}
			continue
		}
		var c chatEvent
		f.decode(t, &c)
		if c.RunID != ack.RunID {
			continue
		}
		if c.State == "delta" {
			deltas = append(deltas, c.text())
			continue
		}
		if c.State != "final" || c.text() != answer {
			t.Fatalf("chat end %s %q, want final %q", c.State, c.text(), answer)
		}
		break
	}
	if len(deltas) < 5 {
		t.Fatalf("%d chat deltas before the final, want one per 4-character piece: %q", len(deltas), deltas)
	}
	for i, d := range deltas {
		if !strings.HasPrefix(answer, d) || (i > 0 && len(d) <= len(deltas[i-1])) {
			t.Fatalf("delta %d %q is not a growing prefix of the answer (%q)", i, d, deltas)
		}
	}
	if deltas[len(deltas)-1] != answer || assistantPieces.String() != answer {
		t.Errorf("last delta %q, agent pieces %q; want the whole answer", deltas[len(deltas)-1], assistantPieces.String())
	}

	var hist struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	w.ok("chat.history", map[string]any{"sessionKey": "agent:main:s1"}, &hist)
	assistants := 0
	for _, m := range hist.Messages {
		if m.Role == "assistant" {
			assistants++
		}
	}
	if assistants != 1 {
		t.Errorf("transcript has %d assistant messages, want the answer stored once: %+v", assistants, hist.Messages)
	}
}

// TestReconnectMidRunGetsFinal: a client that drops mid-stream and
// reconnects gets the final message from the store (agent.wait, then
// chat.history), not from the events it missed.
func TestReconnectMidRunGetsFinal(t *testing.T) {
	answer := strings.Repeat("abcd", 20) // 20 pieces, 15 ms apart
	e := newEnv(t, envOptions{rules: []config.ScriptRule{streamRule(answer)}})
	w, _ := e.connect(t, nil)
	var ack struct{ RunID string }
	w.ok("agent", map[string]any{"message": "stream long", "sessionKey": "agent:main:re", "idempotencyKey": "re1"}, &ack)
	first := w.wait(func(f frame) bool { return f.Event == "chat" && strings.Contains(string(f.Payload), `"delta"`) })
	var c chatEvent
	first.decode(t, &c)
	if c.text() == answer {
		t.Fatal("the first delta already holds the whole answer: nothing streamed")
	}
	w.close() // mid-run

	w2, _ := e.connect(t, nil)
	var run struct{ Status string }
	w2.ok("agent.wait", map[string]any{"runId": ack.RunID, "timeoutMs": 10000}, &run)
	if run.Status != "ok" {
		t.Fatalf("agent.wait status %q", run.Status)
	}
	var hist struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	w2.ok("chat.history", map[string]any{"sessionKey": "agent:main:re"}, &hist)
	last := hist.Messages[len(hist.Messages)-1]
	if last.Role != "assistant" || !strings.Contains(string(last.Content), `"text":"`+answer+`"`) {
		t.Errorf("last stored message %+v, want the whole answer", last)
	}
}

// TestStreamedToolCall: a streamed tool call reaches clients as agent tool
// deltas (name and id first, then the arguments in pieces) before the
// call's own tool start event.
func TestStreamedToolCall(t *testing.T) {
	rule := config.ScriptRule{When: config.ScriptWhen{Message: "^toolstream", Role: "user"},
		ToolCall: &config.ScriptToolCall{Name: "sessions_list", Arguments: map[string]any{"limit": 5}}, ChunkChars: 3}
	e := newEnv(t, envOptions{rules: []config.ScriptRule{rule}})
	w, _ := e.connect(t, nil)
	var ack struct{ RunID string }
	w.ok("agent", map[string]any{"message": "toolstream", "sessionKey": "agent:main:ts", "idempotencyKey": "ts1"}, &ack)
	var name, id string
	var args strings.Builder
	for {
		f := w.wait(func(f frame) bool {
			return f.Event == "agent" && strings.Contains(string(f.Payload), `"stream":"tool"`)
		})
		var a struct {
			RunID string `json:"runId"`
			Data  struct {
				Phase          string          `json:"phase"`
				Name           string          `json:"name"`
				ToolCallID     string          `json:"toolCallId"`
				ArgumentsDelta string          `json:"argumentsDelta"`
				Arguments      json.RawMessage `json:"arguments"`
			} `json:"data"`
		}
		f.decode(t, &a)
		if a.RunID != ack.RunID {
			continue
		}
		if a.Data.Phase == "delta" {
			if a.Data.Name != "" {
				name, id = a.Data.Name, a.Data.ToolCallID
			}
			args.WriteString(a.Data.ArgumentsDelta)
			continue
		}
		if a.Data.Phase != "start" {
			t.Fatalf("tool event %s before the call's start", f.Payload)
		}
		if name != "sessions_list" || id != a.Data.ToolCallID || args.String() != string(a.Data.Arguments) {
			t.Errorf("deltas: name %q id %q arguments %q; the call: id %q arguments %s", name, id, args.String(), a.Data.ToolCallID, a.Data.Arguments)
		}
		return
	}
}

// The `agent` and `chat` events of a run carry OpenClaw's payload `seq`
// (OpenClaw's gateway events: agent {runId, seq, stream, ts, data}; chat {runId,
// sessionKey, seq, state, …}): 1, 2, … per run, in the order sent.
func TestRunEventsCarrySeq(t *testing.T) {
	e := newEnv(t, envOptions{})
	w, _ := e.connect(t, nil)
	id := w.send("agent", map[string]any{"message": "count me", "sessionKey": "agent:main:seq", "idempotencyKey": "seq"})
	var acc struct {
		RunID string `json:"runId"`
	}
	w.response(id).decode(t, &acc)
	if res := w.response(id); !res.OK {
		t.Fatalf("agent = %s", res)
	}
	type ev struct {
		RunID string `json:"runId"`
		Seq   *int64 `json:"seq"`
		State string `json:"state"`
	}
	ofRun := func(f frame) (ev, bool) {
		var p ev
		if f.Type != "event" || (f.Event != "agent" && f.Event != "chat") || json.Unmarshal(f.Payload, &p) != nil {
			return p, false
		}
		return p, p.RunID == acc.RunID
	}
	final := w.wait(func(f frame) bool { p, ok := ofRun(f); return ok && f.Event == "chat" && p.State == "final" })
	var seqs []int64
	for _, f := range append(w.pending, final) {
		if p, ok := ofRun(f); ok {
			if p.Seq == nil {
				t.Fatalf("event without seq: %s", f)
			}
			seqs = append(seqs, *p.Seq)
		}
	}
	for i, s := range seqs {
		if s != int64(i+1) {
			t.Fatalf("seqs of the run's events up to its final chat event = %v, want 1, 2, …", seqs)
		}
	}
	if len(seqs) < 2 {
		t.Fatalf("seqs = %v, want the lifecycle start and more", seqs)
	}
}
