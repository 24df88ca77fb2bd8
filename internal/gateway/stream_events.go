package gateway

import (
	"github.com/switchboard-go/switchboard/internal/domain"
)

// streamEvents maps the engine events streaming and subscriptions add:
//   - delta → agent {stream:"assistant", data:{text, delta}} and chat
//     {state:"delta"} (text), or agent {stream:"tool", data:{phase:"delta"}}
//     (a tool call's pieces);
//   - message → also session.message, for message subscribers only
//     (fanout.run marks it so), after the agent stream events.
//
// ok is false for the other events, which mapEvent maps as before.
func streamEvents(ev domain.Event) (out []outEvent, ok bool) {
	switch ev.Kind {
	case domain.EventDelta:
		if ev.Delta == nil {
			return nil, true
		}
		return deltaEvents(ev.SessionKey, *ev.Delta, ev.TS), true
	case domain.EventMessage:
		if ev.Message == nil {
			return nil, true
		}
		if ev.Message.RunID != "" {
			out = messageEvents(ev.SessionKey, *ev.Message, ev.TS)
		}
		return append(out, sessionMessageEvent(ev.SessionKey, *ev.Message, ev.TS)), true
	}
	return nil, false
}

// Event names the fan-out routes by (fanout.run).
const (
	sessionMessageName = "session.message"
	chatName           = "chat"
)

// deltaEvents are the protocol events of one streamed piece (OpenClaw's
// shapes, OpenClaw's gateway protocol): a text piece is an `agent` assistant event
// with the step's text so far and the piece, and a `chat` delta whose
// message holds the text so far (so a client that missed a delta renders
// no gap); a tool-call piece is an `agent` tool event with phase "delta".
// The final message still comes whole: the assistant message event and
// the chat final.
func deltaEvents(key string, d domain.RunDelta, ts int64) []outEvent {
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
		{"agent", agentEventPayload{RunID: d.RunID, SessionKey: key, Stream: "assistant", TS: ts,
			Data: assistantDelta{Text: d.Accumulated, Delta: d.Delta.Text}}},
		{chatName, chatPayload{RunID: d.RunID, SessionKey: key, State: "delta", DeltaText: d.Accumulated, Replace: true,
			Message: chatMessage{Role: domain.RoleAssistant, Content: []domain.Block{domain.TextBlock(d.Accumulated)}, Timestamp: ts}}},
	}
}

// sessionMessageEvent is OpenClaw's session.message: a message stored in
// a session's transcript, for the connections subscribed to its messages.
// m's RunID is already the name the run's events carry (fanout.run).
func sessionMessageEvent(key string, m domain.Message, ts int64) outEvent {
	return outEvent{sessionMessageName, sessionMessagePayload{SessionKey: key, TS: ts,
		Message:   sessionMessage{Message: m, OpenClaw: messageMeta(m, m.ID, m.RunID)},
		MessageID: m.ID, MessageSeq: m.Seq, RunID: m.RunID}}
}
