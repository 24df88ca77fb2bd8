package gateway

import (
	"github.com/switchboard-go/switchboard/internal/domain"
)

// deltaEvents are the protocol events of one streamed piece (OpenClaw's
// shapes, openclaw-notes §6): a text piece is an `agent` assistant event
// with the step's text so far and the piece, and a `chat` delta whose
// message holds the text so far (so a client that missed a delta renders
// no gap); a tool-call piece is an `agent` tool event with phase "delta".
// The final message still comes whole: the assistant message event and
// the chat final.
func deltaEvents(key string, d domain.StreamDelta, ts int64) []outEvent {
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
		return []outEvent{{name: "agent", payload: map[string]any{"runId": d.RunID, "sessionKey": key, "stream": "tool", "ts": ts, "data": data}}}
	}
	if d.Delta.Text == "" {
		return nil
	}
	return []outEvent{
		{name: "agent", payload: map[string]any{"runId": d.RunID, "sessionKey": key, "stream": "assistant", "ts": ts,
			"data": map[string]any{"text": d.Accumulated, "delta": d.Delta.Text}}},
		{name: "chat", payload: map[string]any{"runId": d.RunID, "sessionKey": key, "state": "delta", "ts": ts,
			"message": map[string]any{
				"role":      domain.RoleAssistant,
				"content":   []domain.Block{domain.TextBlock(d.Accumulated)},
				"timestamp": ts,
			}}},
	}
}

// sessionMessageEvent is OpenClaw's session.message: a message stored in
// a session's transcript, for the connections subscribed to its messages.
func sessionMessageEvent(key string, m domain.Message, ts int64) outEvent {
	return outEvent{name: "session.message", subscribedOnly: true,
		payload: map[string]any{"sessionKey": key, "message": m, "ts": ts}}
}
