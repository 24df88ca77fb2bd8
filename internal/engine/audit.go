package engine

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/audit"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// The engine's part of the audit log (docs/operations.md#audit-log): runs
// of sends and spawns and budget stops are recorded inside the
// transaction that makes them durable (auditRun, through the runtime's
// transition); the gate's refusals and the admin actions at the service
// boundary (audited), right after the call.

var _ audit.Recorder = (*Engine)(nil)

// Record appends an entry to the audit log in a transaction of its own:
// the entry point of what is recorded outside the engine (the gateway's
// token uses and refusals, approval decisions).
func (e *Engine) Record(ctx context.Context, en audit.Entry) error {
	return e.audit.Record(ctx, en)
}

// auditRun is the runtime's Options.Audit: inter-session messages and
// spawns when their run is created, budget stops when a run ends on one.
func (e *Engine) auditRun(tx domain.Tx, from domain.RunStatus, r domain.Run) error {
	en := audit.Entry{Session: r.RequesterKey, Target: r.SessionKey, RunID: r.ID, AgentID: r.AgentID, Outcome: "ok"}
	if en.Session != "" {
		en.Actor = "agent"
	} else {
		en.Actor = api.OperatorName
	}
	switch {
	case from == domain.RunNew:
		switch r.Kind {
		case domain.RunKindSend:
			en.Kind, en.Op = audit.KindMessage, api.ToolSessionsSend
		case domain.RunKindReply:
			en.Kind, en.Op = audit.KindMessage, "reply"
		case domain.RunKindAnnounce:
			en.Kind, en.Op = audit.KindMessage, "announce"
		case domain.RunKindSubagent:
			en.Kind, en.Op = audit.KindSpawn, api.ToolSessionsSpawn
		default:
			return nil
		}
	case domain.RunTerminal(r.Status) && strings.HasPrefix(r.Error, budgetStopPrefix):
		en.Kind, en.Op, en.Outcome, en.Detail = audit.KindBudgetStop, "run", "stopped", r.Error
	default:
		return nil
	}
	return e.audit.RecordTx(tx, en)
}

// budgetStopPrefix opens the error of a run its budget stopped
// (docs/budgets.md).
const budgetStopPrefix = "budget exceeded"

// adminOps are the operations recorded as admin actions when they succeed.
var adminOps = map[api.Op]bool{
	api.OpSessionsPatch: true, api.OpSessionsReset: true, api.OpSessionsDel: true,
	api.OpRunsCancel: true, api.OpSubagentsCancel: true, api.OpDeliver: true,
	api.OpLoopsResume: true, api.OpSessionStatusModel: true, api.OpCommand: true,
}

// audited records a Service call when it ends: a refusal (whatever
// refused it: scope, binding, visibility, send or spawn policy), or an
// admin action that succeeded. Deferred by each gated Service method.
func (e *Engine) audited(ctx context.Context, p api.Principal, op api.Op, target string, errp *error) {
	var err error
	if errp != nil {
		err = *errp
	}
	switch {
	case err != nil && domain.ErrorCode(err) == domain.CodeForbidden:
		e.auditRefusal(ctx, p, op, target, domain.ErrorMessage(err))
	case err == nil && adminOps[op] && e.audit.On():
		e.auditCall(ctx, p, op, target, audit.KindAdmin, "ok", "")
	}
}

// auditSend is audited for sessions_send, whose refusals are results.
func (e *Engine) auditSend(ctx context.Context, p api.Principal, r api.SendRequest, res api.SendResult, err error) {
	if err == nil && res.Status == "forbidden" {
		e.auditRefusal(ctx, p, api.OpSessionsSend, orDefault(r.SessionKey, r.Label), res.Error)
		return
	}
	if err == nil && res.RunID == "" && res.Status == "ok" && res.MessageID != "" {
		// A notify starts no run: recorded here, after its commit.
		e.auditCall(ctx, p, api.OpSessionsSend, res.SessionKey, audit.KindMessage, "ok", "notify")
		return
	}
	e.audited(ctx, p, api.OpSessionsSend, r.SessionKey, &err)
}

func (e *Engine) auditRefusal(ctx context.Context, p api.Principal, op api.Op, target, msg string) {
	e.auditCall(ctx, p, op, target, audit.KindRefusal, "refused", msg)
}

func (e *Engine) auditCall(ctx context.Context, p api.Principal, op api.Op, target string, kind audit.Kind, outcome, detail string) {
	if !e.audit.On() {
		return
	}
	en := audit.Entry{Kind: kind, Actor: orDefault(p.Name, api.OperatorName), Op: string(op), Session: p.Requester(),
		Target: strings.TrimSpace(target), RunID: p.RunID, ToolCallID: p.ToolCallID, Outcome: outcome, Detail: detail}
	if p.RunID != "" {
		en.Surface = "agent"
	}
	if en.Session != "" {
		en.AgentID = e.keys.AgentOf(en.Session)
	}
	if err := e.audit.Record(ctx, en); err != nil {
		e.log.Error("audit record lost", "kind", kind, "op", op, "err", err)
	}
}

// auditPruneEvery is how often retention is applied while the engine runs.
const auditPruneEvery = time.Hour

// pruner applies audit.retentionDays and audit.maxRecords at start and
// then hourly; Close stops it.
type pruner struct {
	stop chan struct{}
	wg   sync.WaitGroup
}

func (e *Engine) startPruner(ctx context.Context) {
	a := e.conf().Audit
	r := audit.Retention{Days: a.RetentionDays, MaxRecords: a.MaxRecords}
	if r.Days <= 0 && r.MaxRecords <= 0 {
		return
	}
	prune := func() {
		if n, err := e.audit.Prune(context.WithoutCancel(ctx), r); err != nil {
			e.log.Error("audit: prune", "err", err)
		} else if n > 0 {
			e.log.Info("audit: pruned", "records", n)
		}
	}
	e.prune = &pruner{stop: make(chan struct{})}
	e.prune.wg.Go(func() {
		prune()
		t := time.NewTicker(auditPruneEvery)
		defer t.Stop()
		for {
			select {
			case <-e.prune.stop:
				return
			case <-t.C:
				prune()
			}
		}
	})
}

func (e *Engine) stopPruner() {
	if e.prune != nil {
		close(e.prune.stop)
		e.prune.wg.Wait()
		e.prune = nil
	}
}

// auditPause records an edge the loop breaker paused, by the
// send (its run) that tripped it.
func (e *Engine) auditPause(tx domain.Tx, runID, from, to, reason string) error {
	return e.audit.RecordTx(tx, audit.Entry{Kind: audit.KindLoopPause, Actor: "system", Op: api.ToolSessionsSend, Session: from, Target: to,
		RunID: runID, AgentID: e.keys.AgentOf(from), Outcome: "paused", Detail: reason})
}

// auditReload records a configuration reload and what it changed.
func (e *Engine) auditReload(applied, needRestart []string) {
	detail := "applied: " + orDefault(strings.Join(applied, ", "), "nothing")
	if len(needRestart) > 0 {
		detail += "; after a restart: " + strings.Join(needRestart, ", ")
	}
	en := audit.Entry{Kind: audit.KindConfigReload, Actor: api.OperatorName, Op: "config.reload", Outcome: "ok", Detail: detail}
	if err := e.audit.Record(context.Background(), en); err != nil {
		e.log.Error("audit record lost", "kind", en.Kind, "err", err)
	}
}
