package gateway

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// The map builders the typed payloads (payloads.go) replaced, kept as the
// reference their encoding must match byte for byte.

func legacyRunEndEvents(r domain.Run, ts int64) []outEvent {
	data := map[string]any{"phase": "end", "startedAt": r.StartedAt, "endedAt": r.EndedAt, "status": r.Status}
	chat := map[string]any{"runId": r.ID, "sessionKey": r.SessionKey}
	switch r.Status {
	case domain.RunOK:
		chat["state"] = "final"
		chat["message"] = map[string]any{
			"role":      domain.RoleAssistant,
			"content":   []domain.Block{domain.TextBlock(r.Reply)},
			"timestamp": r.EndedAt,
		}
		chat["usage"] = r.Usage
	case domain.RunCancelled, domain.RunTimeout:
		// OpenClaw reports stopped runs as an aborted end.
		data["aborted"] = true
		data["error"] = r.Error
		chat["state"] = "aborted"
		chat["errorMessage"] = r.Error
	default:
		data["phase"] = "error"
		data["error"] = r.Error
		chat["state"] = "error"
		chat["errorMessage"] = r.Error
	}
	return []outEvent{
		{"agent", map[string]any{"runId": r.ID, "sessionKey": r.SessionKey, "stream": "lifecycle", "ts": ts, "data": data}},
		{"chat", chat},
	}
}

func legacyMessageEvents(key string, m domain.Message, ts int64) []outEvent {
	base := func(stream string, data map[string]any) outEvent {
		return outEvent{"agent", map[string]any{"runId": m.RunID, "sessionKey": key, "stream": stream, "ts": ts, "data": data}}
	}
	var out []outEvent
	switch m.Role {
	case domain.RoleAssistant:
		if text := m.Content.Text(); text != "" {
			out = append(out, base("assistant", map[string]any{"text": text}))
		}
		for _, b := range m.Content.ToolCalls() {
			out = append(out, base("tool", map[string]any{"phase": "start", "name": b.Name, "toolCallId": b.ID, "arguments": b.Arguments}))
		}
	case domain.RoleToolResult:
		isErr := m.IsError != nil && *m.IsError
		out = append(out, base("tool", map[string]any{"phase": "result", "name": m.ToolName, "toolCallId": m.ToolCallID, "isError": isErr}))
	}
	return out
}

func legacyDeltaEvents(key string, d domain.RunDelta, ts int64) []outEvent {
	if tc := d.Delta.ToolCall; tc != nil {
		data := map[string]any{"phase": "delta", "index": tc.Index}
		if tc.ID != "" {
			data["toolCallId"] = tc.ID
		}
		if tc.Name != "" {
			data["name"] = tc.Name
		}
		if tc.Arguments != "" {
			data["argumentsDelta"] = tc.Arguments
		}
		return []outEvent{{"agent", map[string]any{"runId": d.RunID, "sessionKey": key, "stream": "tool", "ts": ts, "data": data}}}
	}
	if d.Delta.Text == "" {
		return nil
	}
	return []outEvent{
		{"agent", map[string]any{"runId": d.RunID, "sessionKey": key, "stream": "assistant", "ts": ts,
			"data": map[string]any{"text": d.Accumulated, "delta": d.Delta.Text}}},
		{chatName, map[string]any{"runId": d.RunID, "sessionKey": key, "state": "delta", "deltaText": d.Accumulated, "replace": true,
			"message": map[string]any{
				"role":      domain.RoleAssistant,
				"content":   []domain.Block{domain.TextBlock(d.Accumulated)},
				"timestamp": ts,
			}}},
	}
}

// legacySessionMessageEvent is the map of a session.message; its message
// is the stored message's JSON with its identity (`__openclaw`) last.
func legacySessionMessageEvent(key string, m domain.Message, ts int64) outEvent {
	out := map[string]any{"sessionKey": key, "message": m, "ts": ts}
	if meta := messageMeta(m, m.ID, m.RunID); meta != nil {
		body, _ := json.Marshal(m)
		id, _ := json.Marshal(meta)
		out["message"] = json.RawMessage(string(body[:len(body)-1]) + `,"__openclaw":` + string(id) + "}")
	}
	if m.ID != "" {
		out["messageId"] = m.ID
	}
	if m.Seq != 0 {
		out["messageSeq"] = m.Seq
	}
	if m.RunID != "" {
		out["runId"] = m.RunID
	}
	return outEvent{sessionMessageName, out}
}

func legacyWaitPayload(r domain.Run) map[string]any {
	out := map[string]any{"runId": r.ID, "runStatus": r.Status}
	if r.StartedAt > 0 {
		out["startedAt"] = r.StartedAt
	}
	if r.EndedAt > 0 {
		out["endedAt"] = r.EndedAt
	}
	switch r.Status {
	case domain.RunOK:
		out["status"] = "ok"
	case domain.RunTimeout:
		out["status"] = "timeout"
		out["error"] = r.Error
	case domain.RunError, domain.RunCancelled:
		out["status"] = "error"
		out["error"] = r.Error
	default:
		out["status"] = "timeout"
		out["waitTimedOut"] = true
	}
	return out
}

func legacyAccepted(runID string, at int64) any {
	return map[string]any{"runId": runID, "status": "accepted", "acceptedAt": at}
}

func legacyAgentFinal(r domain.Run, model, provider string, known bool) any {
	meta := map[string]any{"sessionId": r.SessionID, "usage": r.Usage}
	if known {
		meta["model"] = model
		meta["provider"] = provider
		if provider == "" {
			meta["provider"] = providerOf(model)
		}
	}
	var durationMs int64
	if r.StartedAt > 0 && r.EndedAt >= r.StartedAt {
		durationMs = r.EndedAt - r.StartedAt
	}
	return map[string]any{"runId": r.ID, "status": "ok", "summary": "completed", "sessionKey": r.SessionKey,
		"result": map[string]any{
			"payloads": []map[string]any{{"text": r.Reply}},
			"meta":     map[string]any{"durationMs": durationMs, "agentMeta": meta},
		}}
}

func legacyRunStart(r domain.Run, ts int64) []outEvent {
	return []outEvent{{"agent", map[string]any{
		"runId": r.ID, "sessionKey": r.SessionKey, "stream": "lifecycle", "ts": ts,
		"data": map[string]any{"phase": "start", "startedAt": r.StartedAt},
	}}}
}

// sameJSON fails unless got and want encode to the same bytes.
func sameJSON(t *testing.T, what string, got, want any) {
	t.Helper()
	g, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	w, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if string(g) != string(w) {
		t.Errorf("%s:\n got %s\nwant %s", what, g, w)
	}
}

func sameEvents(t *testing.T, what string, got, want []outEvent) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d events, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i].name != want[i].name {
			t.Errorf("%s[%d]: event %q, want %q", what, i, got[i].name, want[i].name)
		}
		sameJSON(t, fmt.Sprintf("%s[%d]", what, i), got[i].payload, want[i].payload)
	}
}

// TestTypedPayloadsEncodeAsTheMaps: every typed payload encodes to the
// bytes of the map it replaced, for runs in every end state, with and
// without a model, for text with characters JSON escapes.
func TestTypedPayloadsEncodeAsTheMaps(t *testing.T) {
	s := &Server{}
	cost := &domain.Cost{Input: 0.1, Total: 0.3}
	runs := []domain.Run{
		{ID: "r1", SessionKey: "agent:main:a", SessionID: "s1", Status: domain.RunOK, Reply: "hi <b>&</b> \"q\" \u2028 ü", StartedAt: 10, EndedAt: 25,
			Usage: domain.Usage{Input: 3, Output: 4, TotalTokens: 7, Cost: cost}},
		{ID: "r2", SessionKey: "agent:main:b", Status: domain.RunOK, StartedAt: 0, EndedAt: 5},
		{ID: "r3", SessionKey: "agent:main:c", Status: domain.RunTimeout, Error: "run timed out", StartedAt: 1, EndedAt: 9},
		{ID: "r4", SessionKey: "agent:main:c", Status: domain.RunCancelled, StartedAt: 1, EndedAt: 2},
		{ID: "r5", SessionKey: "agent:main:c", Status: domain.RunError, Error: "boom", EndedAt: 3},
		{ID: "r6", SessionKey: "agent:main:c", Status: domain.RunRunning, StartedAt: 4},
		{ID: "r7", SessionKey: "agent:main:c", Status: domain.RunQueued},
		{ID: "r8", SessionKey: "agent:main:c", Status: domain.RunOK, StartedAt: 9, EndedAt: 3},
	}
	for _, r := range runs {
		sameJSON(t, "wait "+r.ID, waitPayload(r), legacyWaitPayload(r))
		sameEvents(t, "run end "+r.ID, s.runEndEvents(r, nil, 77), legacyRunEndEvents(r, 77))
		sameEvents(t, "run start "+r.ID, s.mapEvent(domain.Event{Kind: domain.EventRunStart, Run: &r, TS: 66}), legacyRunStart(r, 66))
		if r.Status != domain.RunOK {
			continue
		}
		for _, m := range []struct {
			model, provider string
			known           bool
		}{{"openai/gpt-4o", "openai", true}, {"script", "", true}, {"", "", true}, {"", "", false}} {
			got := agentFinalPayload{RunID: r.ID, Status: "ok", Summary: "completed", SessionKey: r.SessionKey,
				Result: agentResult{Payloads: []textPayload{{Text: r.Reply}}, Meta: agentResultMeta{AgentMeta: agentMeta{SessionID: r.SessionID, Usage: r.Usage}}}}
			if r.StartedAt > 0 && r.EndedAt >= r.StartedAt {
				got.Result.Meta.DurationMs = r.EndedAt - r.StartedAt
			}
			if m.known {
				p := m.provider
				if p == "" {
					p = providerOf(m.model)
				}
				got.Result.Meta.AgentMeta.Model, got.Result.Meta.AgentMeta.Provider = &m.model, &p
			}
			sameJSON(t, fmt.Sprintf("final %s %+v", r.ID, m), got, legacyAgentFinal(r, m.model, m.provider, m.known))
		}
	}
	sameJSON(t, "accepted", acceptedPayload{RunID: "r1", Status: "accepted", AcceptedAt: 123}, legacyAccepted("r1", 123))

	yes := true
	msgs := []domain.Message{
		{Role: domain.RoleAssistant, RunID: "r1", Content: domain.BlockContent(domain.TextBlock("a <reply>")), Model: "m", Provider: "p", Timestamp: 5},
		{Role: domain.RoleAssistant, RunID: "r1", Content: domain.BlockContent(domain.TextBlock("calling"), domain.Block{Type: domain.BlockToolCall, ID: "c1", Name: "t", Arguments: json.RawMessage(`{"x":1}`)})},
		{Role: domain.RoleToolResult, RunID: "r1", ToolCallID: "c1", ToolName: "t", IsError: &yes},
		{Role: domain.RoleUser, RunID: "r1", Content: domain.TextContent("hi")},
		{ID: "m5", Seq: 5, Role: domain.RoleUser, Content: domain.TextContent("no run")},
		{ID: "m6", Seq: 6, Role: domain.RoleAssistant, RunID: "r1", Content: domain.TextContent("stored")},
	}
	for i, m := range msgs {
		sameEvents(t, fmt.Sprint("message ", i), messageEvents("agent:main:a", m, 9), legacyMessageEvents("agent:main:a", m, 9))
		sameJSON(t, fmt.Sprint("session.message ", i), sessionMessageEvent("agent:main:a", m, 9).payload, legacySessionMessageEvent("agent:main:a", m, 9).payload)
	}
	deltas := []domain.RunDelta{
		{RunID: "r1", Accumulated: "Hel<lo>", Delta: domain.ModelDelta{Text: "<lo>"}},
		{RunID: "r1", Accumulated: "x", Delta: domain.ModelDelta{ToolCall: &domain.ToolCallDelta{Index: 1, ID: "c", Name: "n", Arguments: "{"}}},
		{RunID: "r1", Accumulated: "x", Delta: domain.ModelDelta{}},
	}
	for i, d := range deltas {
		sameEvents(t, fmt.Sprint("delta ", i), deltaEvents("agent:main:a", d, 8), legacyDeltaEvents("agent:main:a", d, 8))
	}
	for _, ev := range []domain.Event{
		{Kind: domain.EventSession, SessionKey: "agent:main:a", Reason: "updated", TS: 7,
			Session: &domain.Session{Key: "agent:main:a", AgentID: "main", SessionID: "s1", Kind: domain.KindOther, Label: "<l> & \"q\"", UpdatedAt: 6}},
		{Kind: domain.EventSession, SessionKey: "agent:main:b", Reason: "deleted", TS: 8},
		{Kind: domain.EventSession, SessionKey: "agent:main:c"},
	} {
		sameEvents(t, "sessions.changed "+ev.SessionKey, s.mapEvent(ev), legacySessionsChanged(ev))
	}
}

func legacySessionsChanged(ev domain.Event) []outEvent {
	p := map[string]any{"sessionKey": ev.SessionKey, "reason": ev.Reason, "ts": ev.TS}
	if ev.Session != nil {
		p["session"] = sessionRow(*ev.Session)
	}
	return []outEvent{{"sessions.changed", p}}
}
