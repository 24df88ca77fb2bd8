package engine

import (
	"context"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/audit"
)

// The engine's part of the audit log (docs/operations.md#audit-log) is
// gate wiring: each gated Service method defers audited, and package
// auditor records and reads the rest.

var (
	_ audit.Recorder = (*Engine)(nil)
	_ api.Auditor    = (*Engine)(nil)
)

// Record appends an entry to the audit log in a transaction of its own:
// the entry point of what is recorded outside the engine (the gateway's
// token uses and refusals).
func (e *Engine) Record(ctx context.Context, en audit.Entry) error {
	return e.audit.Record(ctx, en)
}

// audited records a Service call when it ends: a refusal, or an admin
// action that succeeded (auditor.Ended). Deferred by each gated Service
// method.
func (e *Engine) audited(ctx context.Context, p api.Principal, op api.Op, target string, errp *error) {
	var err error
	if errp != nil {
		err = *errp
	}
	e.auditor.Ended(ctx, p, op, target, err)
}

// auditSend is audited for sessions_send, whose refusals are results.
func (e *Engine) auditSend(ctx context.Context, p api.Principal, r api.SendRequest, res api.SendResult, err error) {
	e.auditor.SendEnded(ctx, p, r, res, err)
}

// AuditChain is audit.chain.list: a page of the whole chain, oldest first.
func (e *Engine) AuditChain(ctx context.Context, p api.Principal, r api.AuditChainRequest) (_ api.AuditChainResult, err error) {
	defer e.audited(ctx, p, api.OpAuditChain, "", &err)
	if _, err := e.enter(p, api.OpAuditChain); err != nil {
		return api.AuditChainResult{}, err
	}
	return e.auditor.Chain(ctx, r)
}

// AuditList is OpenClaw's audit.list: the records that are run or tool
// events, newest first, in its AuditEvent shape.
func (e *Engine) AuditList(ctx context.Context, p api.Principal, r api.AuditListRequest) (_ api.AuditListResult, err error) {
	defer e.audited(ctx, p, api.OpAuditList, "", &err)
	if _, err := e.enter(p, api.OpAuditList); err != nil {
		return api.AuditListResult{}, err
	}
	return e.auditor.List(ctx, r)
}
