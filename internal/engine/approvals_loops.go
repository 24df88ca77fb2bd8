package engine

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/switchboard-go/switchboard/internal/approvals"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// loopEdge is an edge the loop breaker paused, held in an approval that
// asks an operator to resume it.
type loopEdge struct {
	From   string `json:"from"`
	To     string `json:"to"`
	Reason string `json:"reason"`
}

// askLoopResume asks the operators, when approvals are on (approvals.rules
// has rules), whether to resume the edge from → to the loop breaker just
// paused: an approval whose allow resumes the edge and releases its held
// messages, as `switchboard loops resume` does. A deny or an expiry leaves
// the edge paused. A failure to ask is logged: the pause stands anyway.
func (e *Engine) askLoopResume(ctx context.Context, from, to, reason string) {
	cfg := e.conf().Approvals
	if len(cfg.Rules) == 0 {
		return
	}
	raw, err := json.Marshal(heldCall{Resume: &loopEdge{From: from, To: to, Reason: reason}})
	if err != nil {
		return
	}
	now := e.nowMs()
	a := domain.Approval{ID: "apr_" + e.newID(), Tool: approvals.ToolLoopsResume, Rule: -1, Edge: "loops.resume " + from + " → " + to,
		RequesterKey: from, RequesterAgent: e.keys.AgentOf(from), TargetKey: to, TargetAgent: e.keys.AgentOf(to), Call: raw,
		Status: domain.ApprovalPending, CreatedAt: now, ExpiresAt: now + int64(cfg.ApprovalExpiry())*1000}
	a.Summary = approvals.Presentation(a, reason).Description
	err = e.store.Update(ctx, func(tx domain.Tx) error {
		atx, ok := tx.(domain.ApprovalTx)
		if !ok {
			return errors.New("approvals: this store keeps no approvals")
		}
		if err := atx.PutApproval(a); err != nil {
			return err
		}
		payload, _ := json.Marshal(map[string]string{"approvalId": a.ID})
		_, _, err := tx.EnqueueOutbox(domain.OutboxItem{IdempotencyKey: "approval:" + a.ID, Kind: outboxApproval,
			SessionKey: from, Payload: payload, Status: domain.OutboxPending, NextAttemptAt: a.ExpiresAt, CreatedAt: now})
		return err
	})
	if err != nil {
		e.log.Error("approvals: could not ask to resume a paused edge", "from", from, "to", to, "err", err)
		return
	}
	e.publishApproval(a)
}
