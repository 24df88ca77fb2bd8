package auditor

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/audit"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// Chain is audit.chain.list: a page of the whole chain, oldest first.
func (au *Auditor) Chain(ctx context.Context, r api.AuditChainRequest) (api.AuditChainResult, error) {
	limit, err := api.AuditChainLimit.Apply(api.AuditChainLimit.Or(r.Limit))
	if err != nil {
		return api.AuditChainResult{}, err
	}
	after, err := cursor(r.Cursor)
	if err != nil {
		return api.AuditChainResult{}, err
	}
	s, err := au.o.Log.Reader()
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

// listScan bounds the records one audit.list call reads looking for
// matching events; a page that ends there carries a cursor to go on.
const listScan = 5000

// listPage is how many records audit.list reads at a time.
const listPage = 500

// openclawKinds are the record kinds audit.list can show as OpenClaw's
// run and tool events.
var openclawKinds = []audit.Kind{audit.KindMessage, audit.KindSpawn, audit.KindBudgetStop, audit.KindRefusal, audit.KindLoopPause, audit.KindApproval}

// List is OpenClaw's audit.list: the records that are run or tool
// events, newest first, in its AuditEvent shape.
func (au *Auditor) List(ctx context.Context, r api.AuditListRequest) (api.AuditListResult, error) {
	limit, err := api.AuditListLimit.Apply(api.AuditListLimit.Or(r.Limit))
	if err != nil {
		return api.AuditListResult{}, err
	}
	before, err := cursor(r.Cursor)
	if err != nil {
		return api.AuditListResult{}, err
	}
	if err := checkFilter(r); err != nil {
		return api.AuditListResult{}, err
	}
	s, err := au.o.Log.Reader()
	if err != nil {
		return api.AuditListResult{}, domain.Errorf(domain.CodeUnavailable, "%v", err)
	}
	out := api.AuditListResult{Events: []api.AuditEvent{}}
	for scanned := 0; ; {
		recs, err := s.ListAudit(ctx, audit.Query{Desc: true, Before: before, Kinds: openclawKinds, Limit: listPage})
		if err != nil {
			return api.AuditListResult{}, err
		}
		for _, rec := range recs {
			before = rec.Seq
			scanned++
			if ev, ok := openclawEvent(rec); ok && matches(r, ev) {
				out.Events = append(out.Events, ev)
				if len(out.Events) == int(limit) {
					break
				}
			}
			if scanned == listScan {
				break
			}
		}
		switch {
		case len(recs) == 0 || before <= 1:
			return out, nil
		case len(out.Events) == int(limit) || scanned >= listScan:
			out.NextCursor = strconv.FormatInt(before, 10)
			return out, nil
		case len(recs) < listPage:
			return out, nil
		}
	}
}

// cursor reads a cursor: a record's position ("" = none).
func cursor(c string) (int64, error) {
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
	eventKinds    = []string{"agent_run", "tool_action"}
	eventStatuses = []string{"started", "succeeded", "failed", "cancelled", "timed_out", "blocked", "unknown"}
)

func checkFilter(r api.AuditListRequest) error {
	if r.Kind != "" && !slices.Contains(eventKinds, r.Kind) {
		return domain.Invalid("kind must be one of %s (got %q)", strings.Join(eventKinds, "|"), r.Kind)
	}
	if r.Status != "" && !slices.Contains(eventStatuses, r.Status) {
		return domain.Invalid("status must be one of %s (got %q)", strings.Join(eventStatuses, "|"), r.Status)
	}
	for name, v := range map[string]*int64{"after": r.After, "before": r.Before} {
		if v != nil && *v < 0 {
			return domain.Invalid("%s must be at least 0 (got %d)", name, *v)
		}
	}
	return nil
}

func matches(r api.AuditListRequest, ev api.AuditEvent) bool {
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
		Actor: api.AuditActor{Type: "system", ID: cmp.Or(r.Actor, "system")}, Redaction: "metadata_only",
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
