package cli

import (
	"context"
	"errors"
)

// interruptedWork says what becomes of a command's work when it is
// stopped (SIGINT, SIGTERM): the crash rule of a graceful stop
// (docs/reliability.md), the same in-process as in the gateway.
const interruptedWork = "a run in flight that had not executed a tool call is queued again " +
	"and resumes at the next start (the gateway, or the next command that writes to its session); " +
	"one past its tool calls is recorded as aborted; queued work stays queued"

// interruptedErr is a command cut short by a stop. Its message names the
// signal and what became of the work, instead of "context canceled".
type interruptedErr struct {
	cause string // "signal terminated", or "" when not stopped by a signal
	err   error
}

func (e *interruptedErr) Error() string {
	if e.cause == "" {
		return "interrupted: " + interruptedWork
	}
	return "interrupted by " + e.cause + ": " + interruptedWork
}

func (e *interruptedErr) Unwrap() error { return e.err }

// interruption turns a command's error into one interruptedErr when the
// command's context was stopped and the error is (or holds) that stop.
func interruption(ctx context.Context, err error) error {
	if err == nil || ctx.Err() == nil || !errors.Is(err, context.Canceled) {
		return err
	}
	out := &interruptedErr{err: err}
	var sig stopSignal
	if errors.As(context.Cause(ctx), &sig) {
		out.cause = sig.Error()
	}
	return out
}
