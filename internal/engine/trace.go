package engine

import (
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/tracing"
)

// withTrace fills r's trace id, and its viewer link, from its spec.
func (e *Engine) withTrace(r domain.Run) domain.Run {
	if r.TraceID = tracing.TraceIDOfSpec(r.Spec); r.TraceID != "" {
		r.TraceURL = e.cfg.Tracing.TraceLink(r.TraceID)
	}
	return r
}
