package engine

import (
	"context"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/tracing"
)

// traceParentOr is the trace context of ctx's span, else the one run
// kept: the run a delivery starts joins the trace of the run it reports.
func traceParentOr(ctx context.Context, run domain.Run) string {
	if tp := tracing.Inject(ctx); tp != "" {
		return tp
	}
	return tracing.FromSpec(run.Spec)
}

// withTrace fills r's trace id, and its viewer link, from its spec.
func (e *Engine) withTrace(r domain.Run) domain.Run {
	if r.TraceID = tracing.TraceIDOfSpec(r.Spec); r.TraceID != "" {
		r.TraceURL = e.cfg.Tracing.TraceLink(r.TraceID)
	}
	return r
}
