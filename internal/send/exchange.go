package send

import (
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/exchange"
	"github.com/switchboard-go/switchboard/internal/runs"
	"github.com/switchboard-go/switchboard/internal/runspec"
)

// FollowUp writes what follows a run of an agent-to-agent exchange
// (exchange.Next decides): the next step's run, or the announce's outbox
// item, in the transaction that records the run's end. The steps draw on
// the budgets the exchange's first run drew on (its payer).
func (sd *Sender) FollowUp(tx domain.Tx, run domain.Run, spec runspec.Spec, next func(domain.Run) (domain.Run, error)) error {
	steps := exchange.Next(*spec.A2A, spec.Chain, run)
	for _, f := range steps.Runs {
		state := f.State
		msg := f.Message
		raw, err := runspec.Encode(runspec.Spec{Spec: runs.Spec{UserMessage: &msg, Payer: spec.Payer}, System: f.System, Chain: f.Chain, A2A: &state, TraceParent: spec.TraceParent})
		if err != nil {
			return err
		}
		if _, err := next(domain.Run{SessionKey: f.SessionKey, AgentID: sd.keys.AgentOf(f.SessionKey), Kind: f.Kind,
			Lane: f.Lane, ParentRunID: f.ParentRunID, RequesterKey: f.RequesterKey, Message: f.Text(), Spec: raw,
			IdempotencyKey: f.IdempotencyKey}); err != nil {
			return err
		}
	}
	if it := steps.Post; it != nil {
		it.NextAttemptAt, it.CreatedAt = sd.nowMs(), sd.nowMs()
		if _, _, err := tx.EnqueueOutbox(*it); err != nil {
			return err
		}
	}
	return nil
}
