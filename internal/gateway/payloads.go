package gateway

import (
	"github.com/switchboard-go/switchboard/internal/domain"
)

// Typed payloads of the frames every `agent` round trip sends. They encode
// to the same bytes the maps they replace did — fields in the maps' key
// order (encoding/json sorts a map's keys), the same keys present — but
// without building a map per frame and sorting its keys per encoding
// (payloads_internal_test.go holds the two side by side). Rarer frames
// (errors, tool calls, progress) stay maps.

// acceptedPayload is the first `res` of `agent`.
type acceptedPayload struct {
	AcceptedAt int64  `json:"acceptedAt"`
	RunID      string `json:"runId"`
	Status     string `json:"status"`
}

// agentFinalPayload is the final `res` of an `agent` run that ended ok.
type agentFinalPayload struct {
	Result     agentResult `json:"result"`
	RunID      string      `json:"runId"`
	SessionKey string      `json:"sessionKey"`
	Status     string      `json:"status"`
	Summary    string      `json:"summary"`
}

type agentResult struct {
	Meta     agentResultMeta `json:"meta"`
	Payloads []textPayload   `json:"payloads"`
}

type agentResultMeta struct {
	AgentMeta  agentMeta `json:"agentMeta"`
	DurationMs int64     `json:"durationMs"`
}

// agentMeta names the session's model when it is known (nil: absent).
type agentMeta struct {
	Model     *string      `json:"model,omitempty"`
	Provider  *string      `json:"provider,omitempty"`
	SessionID string       `json:"sessionId"`
	Usage     domain.Usage `json:"usage"`
}

type textPayload struct {
	Text string `json:"text"`
}

// waitResultPayload is agent.wait's result. Error is present (maybe
// empty) for a run that did not end ok.
type waitResultPayload struct {
	EndedAt      int64            `json:"endedAt,omitempty"`
	Error        *string          `json:"error,omitempty"`
	RunID        string           `json:"runId"`
	RunStatus    domain.RunStatus `json:"runStatus"`
	StartedAt    int64            `json:"startedAt,omitempty"`
	Status       string           `json:"status"`
	WaitTimedOut bool             `json:"waitTimedOut,omitempty"`
}

// agentEventPayload is an `agent` event; Data is a typed struct below or,
// for rarer events, a map.
type agentEventPayload struct {
	Data       any    `json:"data"`
	RunID      string `json:"runId"`
	SessionKey string `json:"sessionKey"`
	Stream     string `json:"stream"`
	TS         int64  `json:"ts"`
}

// sessionsChangedPayload is a `sessions.changed` event. Its fields are in
// the order a map of them encoded in, so the frame is unchanged.
type sessionsChangedPayload struct {
	Reason     string      `json:"reason"`
	Session    *SessionRow `json:"session,omitempty"`
	SessionKey string      `json:"sessionKey"`
	TS         int64       `json:"ts"`
}

// lifecycleStart is the data of a run's start.
type lifecycleStart struct {
	Phase     string `json:"phase"`
	StartedAt int64  `json:"startedAt"`
}

// lifecycleEnd is the data of the end of a run that ended ok.
type lifecycleEnd struct {
	EndedAt   int64            `json:"endedAt"`
	Phase     string           `json:"phase"`
	StartedAt int64            `json:"startedAt"`
	Status    domain.RunStatus `json:"status"`
}

// assistantText is the data of an assistant message's text, whole.
type assistantText struct {
	Text string `json:"text"`
}

// assistantDelta is the data of a streamed text piece.
type assistantDelta struct {
	Delta string `json:"delta"`
	Text  string `json:"text"`
}

// chatPayload is a `chat` event: a streamed delta (no usage) or the final
// message of a run that ended ok. As in OpenClaw's ChatEventSchema it has
// no ts; a delta carries the text so far both as deltaText (with replace:
// the client replaces what it shows) and as the message.
type chatPayload struct {
	DeltaText  string        `json:"deltaText,omitempty"`
	Message    chatMessage   `json:"message"`
	Replace    bool          `json:"replace,omitempty"`
	RunID      string        `json:"runId"`
	SessionKey string        `json:"sessionKey"`
	State      string        `json:"state"`
	Usage      *domain.Usage `json:"usage,omitempty"`
}

type chatMessage struct {
	// OpenClaw is the stored message's identity on a run's final
	// (msgidentity.go); a delta has none.
	OpenClaw  *openclawMeta  `json:"__openclaw,omitempty"`
	Content   []domain.Block `json:"content"`
	Role      string         `json:"role"`
	Timestamp int64          `json:"timestamp"`
}

// sessionMessagePayload is a `session.message` event: as OpenClaw's, the
// message carries its identity (`__openclaw`) and the payload names it
// (messageId, messageSeq, and the runId of the run that wrote it).
type sessionMessagePayload struct {
	Message    sessionMessage `json:"message"`
	MessageID  string         `json:"messageId,omitempty"`
	MessageSeq int64          `json:"messageSeq,omitempty"`
	RunID      string         `json:"runId,omitempty"`
	SessionKey string         `json:"sessionKey"`
	TS         int64          `json:"ts"`
}

// sessionMessage is a stored message with its identity.
type sessionMessage struct {
	domain.Message
	OpenClaw *openclawMeta `json:"__openclaw,omitempty"`
}
