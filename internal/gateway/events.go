package gateway

import (
	"github.com/switchboard-go/switchboard/internal/domain"
)

// outEvent is one protocol event made from an engine event.
type outEvent struct {
	name    string
	payload any
}

// mapEvent turns an engine event into protocol events:
//   - run.start → agent {stream:"lifecycle", data:{phase:"start"}}
//   - run.end → agent lifecycle end|error, then chat final|error|aborted
//   - assistant message → agent {stream:"assistant"} (text) and
//     {stream:"tool"} (each tool call); tool results → {stream:"tool"}
//   - run.progress → agent {stream:"progress", data:{step, phase, …}}
//   - session → sessions.changed
//
// Keys are canonical. Outbox events have no protocol counterpart.
func (s *Server) mapEvent(ev domain.Event) []outEvent {
	if out, ok := streamEvents(ev); ok { // deltas, session.message (stream_events.go)
		return out
	}
	switch ev.Kind {
	case domain.EventRunStart:
		if ev.Run == nil {
			return nil
		}
		r := ev.Run
		return []outEvent{{"agent", agentEventPayload{RunID: r.ID, SessionKey: r.SessionKey, Stream: "lifecycle", TS: ev.TS,
			Data: lifecycleStart{Phase: "start", StartedAt: r.StartedAt}}}}
	case domain.EventRunEnd:
		if ev.Run == nil {
			return nil
		}
		// The fan-out puts the run's stored answer on its end (runFinals).
		return s.runEndEvents(*ev.Run, ev.Message, ev.TS)
	case domain.EventMessage:
		if ev.Message == nil || ev.Message.RunID == "" {
			return nil
		}
		return messageEvents(ev.SessionKey, *ev.Message, ev.TS)
	case domain.EventProgress:
		if ev.Progress == nil {
			return nil
		}
		// At most one a second per run (the runtime throttles).
		return []outEvent{{"agent", map[string]any{"runId": ev.Progress.RunID, "sessionKey": ev.SessionKey, "stream": "progress",
			"ts": ev.TS, "data": ev.Progress}}}
	case domain.EventSession:
		p := sessionsChangedPayload{SessionKey: ev.SessionKey, Reason: ev.Reason, TS: ev.TS}
		if ev.Session != nil {
			row := sessionRow(*ev.Session)
			p.Session = &row
		}
		return []outEvent{{"sessions.changed", p}}
	case domain.EventApproval:
		return approvalEvent(ev)
	case domain.EventLoopPaused:
		return []outEvent{{"loops.paused", map[string]any{"sessionKey": ev.SessionKey, "reason": ev.Reason, "ts": ev.TS}}}
	}
	return nil
}

// runEndEvents are the lifecycle and chat events of an ended run; final,
// when known, is the stored message of its answer, whose identity the
// chat final's message carries.
func (s *Server) runEndEvents(r domain.Run, final *domain.Message, ts int64) []outEvent {
	if r.Status == domain.RunOK {
		msg := chatMessage{Role: domain.RoleAssistant, Content: []domain.Block{domain.TextBlock(r.Reply)}, Timestamp: r.EndedAt}
		if final != nil {
			msg.OpenClaw = messageMeta(*final, final.ID, r.ID)
		}
		return []outEvent{
			{"agent", agentEventPayload{RunID: r.ID, SessionKey: r.SessionKey, Stream: "lifecycle", TS: ts,
				Data: lifecycleEnd{EndedAt: r.EndedAt, Phase: "end", StartedAt: r.StartedAt, Status: r.Status}}},
			{"chat", chatPayload{RunID: r.ID, SessionKey: r.SessionKey, State: "final", Usage: &r.Usage, Message: msg}},
		}
	}
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

// messageEvents are the agent stream events of one transcript message.
func messageEvents(key string, m domain.Message, ts int64) []outEvent {
	base := func(stream string, data map[string]any) outEvent {
		return outEvent{"agent", map[string]any{"runId": m.RunID, "sessionKey": key, "stream": stream, "ts": ts, "data": data}}
	}
	var out []outEvent
	switch m.Role {
	case domain.RoleAssistant:
		if text := m.Content.Text(); text != "" {
			out = append(out, outEvent{"agent", agentEventPayload{RunID: m.RunID, SessionKey: key, Stream: "assistant", TS: ts, Data: assistantText{Text: text}}})
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
