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
