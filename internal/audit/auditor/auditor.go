// Package auditor is what the gateway records into the audit log and
// shows of it (docs/operations.md#audit-log): runs of sends and spawns
// and budget stops, recorded inside the transaction that makes them
// durable (Run, through the run package's transition); the gate's
// refusals and the admin actions at the service boundary (Ended), right
// after the call; loop pauses and configuration reloads; retention
// applied while the gateway runs; and the two reads, audit.chain.list
// (the chain itself) and OpenClaw's audit.list (run and tool events).
//
// It sits beside package audit, not in it, because it speaks package
// api, which imports audit for the chain's records.
package auditor

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/audit"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// Options are an Auditor's dependencies; all are required.
type Options struct {
	// Log is the audit log recorded to and read.
	Log *audit.Log
	// Config is the configuration in effect (audit.retentionDays and
	// audit.maxRecords are read at Start).
	Config func() *config.Config
	// AgentOf is the agent of a session key.
	AgentOf func(key string) string
	// Logger is where a record that could not be written is reported
	// (default: nowhere).
	Logger *slog.Logger
}

// Auditor records the gateway's actions in the audit log and reads it
// back. Start begins applying retention; Stop ends it.
type Auditor struct {
	o Options

	stop chan struct{}
	wg   sync.WaitGroup
}

// New builds an Auditor.
func New(o Options) *Auditor {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Auditor{o: o}
}

// Run is the run package's audit hook: inter-session messages and
// spawns when their run is created, budget stops when a run ends on one.
func (au *Auditor) Run(tx domain.Tx, from domain.RunStatus, r domain.Run) error {
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
	return au.o.Log.RecordTx(tx, en)
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

// Ended records a gated call when it ends with err: a refusal (whatever
// refused it: scope, binding, visibility, send or spawn policy), or an
// admin action that succeeded.
func (au *Auditor) Ended(ctx context.Context, p api.Principal, op api.Op, target string, err error) {
	switch {
	case err != nil && domain.ErrorCode(err) == domain.CodeForbidden:
		au.refusal(ctx, p, op, target, domain.ErrorMessage(err))
	case err == nil && adminOps[op] && au.o.Log.On():
		au.call(ctx, p, op, target, audit.KindAdmin, "ok", "")
	}
}

// SendEnded is Ended for sessions_send, whose refusals are results.
func (au *Auditor) SendEnded(ctx context.Context, p api.Principal, r api.SendRequest, res api.SendResult, err error) {
	if err == nil && res.Status == "forbidden" {
		target := r.SessionKey
		if target == "" {
			target = r.Label
		}
		au.refusal(ctx, p, api.OpSessionsSend, target, res.Error)
		return
	}
	if err == nil && res.RunID == "" && res.Status == "ok" && res.MessageID != "" {
		// A notify starts no run: recorded here, after its commit.
		au.call(ctx, p, api.OpSessionsSend, res.SessionKey, audit.KindMessage, "ok", "notify")
		return
	}
	au.Ended(ctx, p, api.OpSessionsSend, r.SessionKey, err)
}

func (au *Auditor) refusal(ctx context.Context, p api.Principal, op api.Op, target, msg string) {
	au.call(ctx, p, op, target, audit.KindRefusal, "refused", msg)
}

func (au *Auditor) call(ctx context.Context, p api.Principal, op api.Op, target string, kind audit.Kind, outcome, detail string) {
	if !au.o.Log.On() {
		return
	}
	actor := p.Name
	if actor == "" {
		actor = api.OperatorName
	}
	en := audit.Entry{Kind: kind, Actor: actor, Op: string(op), Session: p.Requester(),
		Target: strings.TrimSpace(target), RunID: p.RunID, ToolCallID: p.ToolCallID, Outcome: outcome, Detail: detail}
	if p.RunID != "" {
		en.Surface = "agent"
	}
	if en.Session != "" {
		en.AgentID = au.o.AgentOf(en.Session)
	}
	au.record(ctx, en)
}

func (au *Auditor) record(ctx context.Context, en audit.Entry) {
	if err := au.o.Log.Record(ctx, en); err != nil {
		au.o.Logger.Error("audit record lost", "kind", en.Kind, "op", en.Op, "err", err)
	}
}

// Pause records an edge the loop breaker paused, by the send (its run)
// that tripped it: the limits package's hook, inside that transaction.
func (au *Auditor) Pause(tx domain.Tx, runID, from, to, reason string) error {
	return au.o.Log.RecordTx(tx, audit.Entry{Kind: audit.KindLoopPause, Actor: "system", Op: api.ToolSessionsSend, Session: from, Target: to,
		RunID: runID, AgentID: au.o.AgentOf(from), Outcome: "paused", Detail: reason})
}

// Reload records a configuration reload and what it changed.
func (au *Auditor) Reload(applied, needRestart []string) {
	detail := "applied: " + strings.Join(applied, ", ")
	if len(strings.Join(applied, ", ")) == 0 {
		detail = "applied: nothing"
	}
	if len(needRestart) > 0 {
		detail += "; after a restart: " + strings.Join(needRestart, ", ")
	}
	au.record(context.Background(), audit.Entry{Kind: audit.KindConfigReload, Actor: api.OperatorName, Op: "config.reload", Outcome: "ok", Detail: detail})
}

// pruneEvery is how often retention is applied while the gateway runs.
const pruneEvery = time.Hour

// Start applies audit.retentionDays and audit.maxRecords now and then
// hourly, until Stop; without either it starts nothing.
func (au *Auditor) Start(ctx context.Context) {
	a := au.o.Config().Audit
	r := audit.Retention{Days: a.RetentionDays, MaxRecords: a.MaxRecords}
	if r.Days <= 0 && r.MaxRecords <= 0 || au.stop != nil {
		return
	}
	prune := func() {
		if n, err := au.o.Log.Prune(context.WithoutCancel(ctx), r); err != nil {
			au.o.Logger.Error("audit: prune", "err", err)
		} else if n > 0 {
			au.o.Logger.Info("audit: pruned", "records", n)
		}
	}
	stop := make(chan struct{})
	au.stop = stop
	au.wg.Go(func() {
		prune()
		t := time.NewTicker(pruneEvery)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				prune()
			}
		}
	})
}

// Stop ends what Start began and waits for it.
func (au *Auditor) Stop() {
	if au.stop != nil {
		close(au.stop)
		au.wg.Wait()
		au.stop = nil
	}
}
