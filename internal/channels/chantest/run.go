package chantest

import (
	"context"

	"github.com/switchboard-go/switchboard/internal/channels"
)

// RunSink starts the run "run-1" for every message; the run ends when
// Ended is closed (the typing tests wait on it).
type RunSink struct{ Ended chan struct{} }

// NewRunSink returns a RunSink whose run has not ended.
func NewRunSink() RunSink { return RunSink{Ended: make(chan struct{})} }

// Handle starts the run.
func (s RunSink) Handle(context.Context, channels.Inbound) (channels.Outcome, error) {
	return channels.Outcome{RunID: "run-1"}, nil
}

// WaitRun returns once the run ended or ctx did.
func (s RunSink) WaitRun(ctx context.Context, _ string) error {
	select {
	case <-s.Ended:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
