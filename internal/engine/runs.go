package engine

import (
	"context"
	"errors"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/tracing"
)

// waitRun waits for a run to end, up to timeout.
func (e *Engine) waitRun(ctx context.Context, runID string, timeout time.Duration) (domain.Run, error) {
	r, err := e.rt.Wait(ctx, runID, timeout)
	if errors.Is(err, domain.ErrNotFound) {
		return r, domain.Errorf(domain.CodeNotFound, "run not found: %s", runID)
	}
	return e.withTrace(r), err
}

// getRun returns a run by id.
func (e *Engine) getRun(ctx context.Context, runID string) (domain.Run, error) {
	r, err := e.store.GetRun(ctx, runID)
	if errors.Is(err, domain.ErrNotFound) {
		return r, domain.Errorf(domain.CodeNotFound, "run not found: %s", runID)
	}
	return e.withTrace(r), err
}

// cancelRun cancels a run and every run it started.
func (e *Engine) cancelRun(ctx context.Context, runID string) (domain.Run, error) {
	r, err := e.rt.Cancel(ctx, runID)
	if errors.Is(err, domain.ErrNotFound) {
		return r, domain.Errorf(domain.CodeNotFound, "run not found: %s", runID)
	}
	return r, err
}

// StopSession cancels the session's queued and running runs.
func (e *Engine) StopSession(ctx context.Context, key string) (int, error) {
	runs, err := e.store.ListRuns(ctx, domain.RunQuery{SessionKey: key, Statuses: []domain.RunStatus{domain.RunQueued, domain.RunRunning}})
	if err != nil {
		return 0, err
	}
	for _, r := range runs {
		if _, err := e.rt.Cancel(ctx, r.ID); err != nil {
			return 0, err
		}
	}
	return len(runs), nil
}

// withTrace fills r's trace id, and its viewer link, from its spec.
func (e *Engine) withTrace(r domain.Run) domain.Run {
	if r.TraceID = tracing.TraceIDOfSpec(r.Spec); r.TraceID != "" {
		r.TraceURL = e.cfg.Tracing.TraceLink(r.TraceID)
	}
	return r
}
