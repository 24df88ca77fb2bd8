package domain

// EventProgress carries a running run's progress record (Event.Progress);
// the gateway sends it as an `agent` event on stream "progress", at most
// once per second per run.
const EventProgress = "run.progress"

// ProgressTextChars is how much of the assistant's latest text a progress
// record keeps (its end).
const ProgressTextChars = 200

// Progress is the small record a running run keeps of what it is doing,
// so a parent can see a child's state without reading its transcript.
type Progress struct {
	RunID      string `json:"runId"`
	SessionKey string `json:"sessionKey"`
	// Step counts model calls made so far (1 during the first).
	Step int `json:"step"`
	// Phase is "model", "tool:<name>" or "waiting" (claimed, not yet
	// calling its model).
	Phase string `json:"phase"`
	// LastTool and LastToolOutcome ("ok" or "error") are the latest
	// finished tool call.
	LastTool        string `json:"lastTool,omitempty"`
	LastToolOutcome string `json:"lastToolOutcome,omitempty"`
	// Tokens are the run's input plus output tokens so far.
	Tokens    int64 `json:"tokens"`
	StartedAt int64 `json:"startedAt"`
	ElapsedMs int64 `json:"elapsedMs"`
	// Text is the last ProgressTextChars characters of assistant text.
	Text string `json:"text,omitempty"`
}
