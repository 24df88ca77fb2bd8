package domain

// EventDelta is a piece of an assistant message while the model produces
// it (streaming). Deltas are live notifications only: the message is
// stored once, whole, when the model call ends.
const EventDelta = "delta"

// ModelDelta is one piece of an assistant message as a streaming provider
// receives it. Exactly one of Text, Thinking and ToolCall is set.
type ModelDelta struct {
	// Text is appended answer text.
	Text string `json:"text,omitempty"`
	// Thinking is appended reasoning text.
	Thinking string `json:"thinking,omitempty"`
	// ToolCall is a piece of a tool call.
	ToolCall *ToolCallDelta `json:"toolCall,omitempty"`
}

// ToolCallDelta is a piece of one tool call: ID and Name arrive with the
// call's first piece, Arguments (raw JSON text) in pieces after it.
type ToolCallDelta struct {
	// Index is the call's position among the message's tool calls.
	Index     int    `json:"index"`
	ID        string `json:"id,omitempty"`
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments,omitempty"`
}

// DeltaFunc receives the deltas of one model call, in order, on the
// provider's goroutine. It must return quickly (it publishes an event).
type DeltaFunc func(ModelDelta)

// RunDelta is the payload of an EventDelta: one delta of a run's model
// step, with the step's text so far (clients that join late or dropped
// an event render Accumulated, never a gap).
type RunDelta struct {
	RunID string `json:"runId"`
	// Step is the model call within the run (0 first).
	Step  int        `json:"step"`
	Delta ModelDelta `json:"delta"`
	// Accumulated is the step's answer text so far, this delta included.
	Accumulated string `json:"accumulated"`
}
