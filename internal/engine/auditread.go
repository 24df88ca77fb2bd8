package engine

import (
	"context"
	"strconv"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/audit"
	"github.com/switchboard-go/switchboard/internal/domain"
)

var _ api.Auditor = (*Engine)(nil)

// AuditChain is audit.chain.list: a page of the whole chain, oldest first.
func (e *Engine) AuditChain(ctx context.Context, p api.Principal, r api.AuditChainRequest) (_ api.AuditChainResult, err error) {
	defer e.audited(ctx, p, api.OpAuditChain, "", &err)
	if _, err := e.enter(p, api.OpAuditChain); err != nil {
		return api.AuditChainResult{}, err
	}
	limit, err := api.AuditChainLimit.Apply(api.AuditChainLimit.Or(r.Limit))
	if err != nil {
		return api.AuditChainResult{}, err
	}
	after, err := auditCursor(r.Cursor)
	if err != nil {
		return api.AuditChainResult{}, err
	}
	s, err := e.audit.Reader()
	if err != nil {
		return api.AuditChainResult{}, domain.Errorf(domain.CodeUnavailable, "%v", err)
	}
	st, err := s.AuditState(ctx)
	if err != nil {
		return api.AuditChainResult{}, err
	}
	recs, err := s.ListAudit(ctx, audit.Query{After: max(after, st.Anchor.Seq), Limit: int(limit)})
	if err != nil {
		return api.AuditChainResult{}, err
	}
	out := api.AuditChainResult{Anchor: st.Anchor, Head: st.Head, Records: recs}
	if len(recs) == int(limit) {
		out.NextCursor = strconv.FormatInt(recs[len(recs)-1].Seq, 10)
	}
	return out, nil
}

// auditListScan bounds the records one audit.list call reads looking for
// matching events; a page that ends there carries a cursor to go on.
const auditListScan = 5000

// auditListPage is how many records audit.list reads at a time.
const auditListPage = 500

// openclawKinds are the record kinds audit.list can show as OpenClaw's
// run and tool events.
var openclawKinds = []audit.Kind{audit.KindMessage, audit.KindSpawn, audit.KindBudgetStop, audit.KindRefusal, audit.KindLoopPause, audit.KindApproval}

// AuditList is OpenClaw's audit.list: the records that are run or tool
// events, newest first, in its AuditEvent shape.
func (e *Engine) AuditList(ctx context.Context, p api.Principal, r api.AuditListRequest) (_ api.AuditListResult, err error) {
	defer e.audited(ctx, p, api.OpAuditList, "", &err)
	if _, err := e.enter(p, api.OpAuditList); err != nil {
		return api.AuditListResult{}, err
	}
	limit, err := api.AuditListLimit.Apply(api.AuditListLimit.Or(r.Limit))
	if err != nil {
		return api.AuditListResult{}, err
	}
	before, err := auditCursor(r.Cursor)
	if err != nil {
		return api.AuditListResult{}, err
	}
	if err := checkAuditFilter(r); err != nil {
		return api.AuditListResult{}, err
	}
	s, err := e.audit.Reader()
	if err != nil {
		return api.AuditListResult{}, domain.Errorf(domain.CodeUnavailable, "%v", err)
	}
	out := api.AuditListResult{Events: []api.AuditEvent{}}
	for scanned := 0; ; {
		recs, err := s.ListAudit(ctx, audit.Query{Desc: true, Before: before, Kinds: openclawKinds, Limit: auditListPage})
		if err != nil {
			return api.AuditListResult{}, err
		}
		for _, rec := range recs {
			before = rec.Seq
			scanned++
			if ev, ok := openclawEvent(rec); ok && matchAudit(r, ev) {
				out.Events = append(out.Events, ev)
				if len(out.Events) == int(limit) {
					break
				}
			}
			if scanned == auditListScan {
				break
			}
		}
		switch {
		case len(recs) == 0 || before <= 1:
			return out, nil
		case len(out.Events) == int(limit) || scanned >= auditListScan:
			out.NextCursor = strconv.FormatInt(before, 10)
			return out, nil
		case len(recs) < auditListPage:
			return out, nil
		}
	}
}

// auditCursor reads a cursor: a record's position ("" = none).
func auditCursor(c string) (int64, error) {
	if c == "" {
		return 0, nil
	}
	if err := api.AuditCursorChars.CheckChars(c); err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(c, 10, 64)
	if err != nil || n < 1 {
		return 0, domain.Invalid("cursor %q is not a cursor this gateway gave (a record's position)", c)
	}
	return n, nil
}

// Values of audit.list's filters (OpenClaw's AuditListParams).
var (
	auditEventKinds    = []string{"agent_run", "tool_action"}
	auditEventStatuses = []string{"started", "succeeded", "failed", "cancelled", "timed_out", "blocked", "unknown"}
)

func checkAuditFilter(r api.AuditListRequest) error {
	if r.Kind != "" && !contains(auditEventKinds, r.Kind) {
		return domain.Invalid("kind must be one of %s (got %q)", strings.Join(auditEventKinds, "|"), r.Kind)
	}
	if r.Status != "" && !contains(auditEventStatuses, r.Status) {
		return domain.Invalid("status must be one of %s (got %q)", strings.Join(auditEventStatuses, "|"), r.Status)
	}
	for name, v := range map[string]*int64{"after": r.After, "before": r.Before} {
		if v != nil && *v < 0 {
			return domain.Invalid("%s must be at least 0 (got %d)", name, *v)
		}
	}
	return nil
}

func matchAudit(r api.AuditListRequest, ev api.AuditEvent) bool {
	return (r.AgentID == "" || r.AgentID == ev.AgentID) &&
		(r.SessionKey == "" || r.SessionKey == ev.SessionKey) &&
		(r.RunID == "" || r.RunID == ev.RunID) &&
		(r.Kind == "" || r.Kind == ev.Kind) &&
		(r.Status == "" || r.Status == ev.Status) &&
		(r.After == nil || ev.OccurredAt >= *r.After) &&
		(r.Before == nil || ev.OccurredAt <= *r.Before)
}

// openclawEvent is a record as OpenClaw's AuditEvent, when it is one: a
// run started by a send or a spawn, a run its budget stopped, or an
// agent's tool call refused or held. Records without a run (token uses,
// reloads, admin actions, an operator's refused call) are only in the
// chain (audit.chain.list).
func openclawEvent(r audit.Record) (api.AuditEvent, bool) {
	if r.RunID == "" || r.AgentID == "" {
		return api.AuditEvent{}, false
	}
	ev := api.AuditEvent{
		EventID: "audit-" + strconv.FormatInt(r.Seq, 10), Sequence: r.Seq, SourceSequence: r.Seq,
		OccurredAt: max(r.At, 0), AgentID: r.AgentID, RunID: r.RunID, ToolCallID: r.ToolCallID,
		Actor: api.AuditActor{Type: "system", ID: orDefault(r.Actor, "system")}, Redaction: "metadata_only",
	}
	if r.Actor == "agent" && r.Session != "" {
		ev.Actor = api.AuditActor{Type: "agent", ID: r.Session}
	}
	switch r.Kind {
	case audit.KindMessage, audit.KindSpawn:
		ev.Kind, ev.Action, ev.Status, ev.SessionKey = "agent_run", "agent.run.started", "started", r.Target
	case audit.KindBudgetStop:
		ev.Kind, ev.Action, ev.Status, ev.ErrorCode, ev.SessionKey = "agent_run", "agent.run.finished", "blocked", "run_blocked", r.Target
	case audit.KindRefusal, audit.KindLoopPause, audit.KindApproval:
		if r.ToolCallID == "" {
			return api.AuditEvent{}, false
		}
		ev.Kind, ev.Action, ev.SessionKey = "tool_action", "tool.action.finished", r.Session
		ev.ToolName, _, _ = strings.Cut(r.Op, ".")
		ev.Status, ev.ErrorCode = "blocked", "tool_blocked"
		if r.Kind == audit.KindApproval && strings.HasPrefix(r.Outcome, "allow") {
			ev.Status, ev.ErrorCode = "succeeded", ""
		}
	default:
		return api.AuditEvent{}, false
	}
	if ev.SessionKey == "" {
		ev.SessionKey = r.Session
	}
	if ev.ToolName == "" && r.Kind != audit.KindMessage && r.Kind != audit.KindSpawn && r.Kind != audit.KindBudgetStop {
		return api.AuditEvent{}, false
	}
	return ev, true
}
