package api

import "context"

// Operations of the loop breaker (docs/operations.md#limits).
const (
	OpLoopsList   Op = "loops.list"
	OpLoopsResume Op = "loops.resume"
)

// LoopPause is an edge of the message graph the loop breaker paused.
type LoopPause struct {
	From   string `json:"from"`
	To     string `json:"to"`
	Reason string `json:"reason"`
	// Since is when it was paused (Unix ms).
	Since int64 `json:"since"`
}

// LoopsResult is loops.list's answer.
type LoopsResult struct {
	Pauses []LoopPause `json:"pauses"`
}

// LoopResumeRequest names the paused edge to resume.
type LoopResumeRequest struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// LoopResumeResult says how many held messages the resume released.
type LoopResumeResult struct {
	Released int `json:"released"`
}

// Operators are the operations that keep agents in check. The engine
// implements them through its gate, the client against a gateway.
type Operators interface {
	LoopsList(ctx context.Context, p Principal) (LoopsResult, error)
	LoopResume(ctx context.Context, p Principal, req LoopResumeRequest) (LoopResumeResult, error)
}
