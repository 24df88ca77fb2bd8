package approvals

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// Origin is where a held call comes from.
type Origin struct {
	// RunID is the requester's run that made the call ("" outside one).
	RunID string
	// Key is the call's idempotency key scoped to its caller ("" when it
	// has none): a retry under it finds the approval its first attempt
	// raised.
	Key string
}

// HoldSend is the approval gate of sessions_send: a send an
// approvals.rules entry matches is held; with timeoutSeconds > 0 the
// call waits within it for the decision, and replay carries it out as
// its requester once allowed. held is false when no rule holds it.
func (ap *Approver) HoldSend(ctx context.Context, c Call, o Origin, p api.SendRequest, display string,
	replay func(context.Context, domain.Approval, api.SendRequest) (api.SendResult, error)) (_ api.SendResult, held bool, _ error) {
	p.SessionKey, p.Label, p.AgentID = c.TargetKey, "", ""
	a, held, err := ap.hold(ctx, c, heldCall{Send: &p, RunID: o.RunID}, o)
	if !held || err != nil {
		return api.SendResult{}, held, err
	}
	// The replays below run under the approval's key, not the caller's.
	p.IdempotencyKey = ""
	if a.Status == domain.ApprovalPending {
		wait := api.SendTimeout.Default
		if p.TimeoutSeconds != nil {
			wait = int64(*p.TimeoutSeconds)
		}
		start := ap.o.Now()
		if a = ap.await(ctx, a, time.Duration(wait)*time.Second); a.Status == domain.ApprovalAllowed {
			left := max(0, int(wait)-int(ap.o.Now().Sub(start)/time.Second))
			p.TimeoutSeconds = &left
			res, err := replay(ctx, a, p)
			res.ApprovalID = a.ID
			return res, true, err
		}
	}
	switch a.Status {
	case domain.ApprovalPending:
		return api.SendResult{Status: api.StatusPendingApproval, ApprovalID: a.ID, SessionKey: display,
			Error: pendingText(a)}, true, nil
	case domain.ApprovalAllowed:
		// A retry of a call allowed already: the replay under the
		// approval's key answers with its run.
		res, err := replay(ctx, a, p)
		res.ApprovalID = a.ID
		return res, true, err
	}
	return api.SendResult{Status: "forbidden", ApprovalID: a.ID, SessionKey: display, Error: refusedText(a)}, true, nil
}

// HoldSpawn is the approval gate of sessions_spawn: a spawn is never
// waited for, so a held one answers pending_approval at once (replay
// carries out one allowed already).
func (ap *Approver) HoldSpawn(ctx context.Context, c Call, o Origin, p api.SpawnRequest,
	replay func(context.Context, domain.Approval, api.SpawnRequest) (api.SpawnResult, error)) (_ api.SpawnResult, held bool, _ error) {
	a, held, err := ap.hold(ctx, c, heldCall{Spawn: &p, RunID: o.RunID}, o)
	if !held || err != nil {
		return api.SpawnResult{}, held, err
	}
	p.IdempotencyKey = ""
	switch a.Status {
	case domain.ApprovalPending:
		return api.SpawnResult{Status: api.StatusPendingApproval, ApprovalID: a.ID, Note: pendingText(a)}, true, nil
	case domain.ApprovalAllowed:
		res, err := replay(ctx, a, p)
		res.ApprovalID = a.ID
		return res, true, err
	}
	return api.SpawnResult{}, true, domain.Errorf(domain.CodeForbidden, "%s", refusedText(a))
}

// hold holds call when an approvals rule matches it and no allow-always
// of its edge stands: it stores the approval and its outbox item
// together and tells the operators. A call with an idempotency key finds
// the approval its first attempt raised.
func (ap *Approver) hold(ctx context.Context, c Call, call heldCall, o Origin) (domain.Approval, bool, error) {
	cfg := ap.o.Config().Approvals
	if len(cfg.Rules) == 0 {
		return domain.Approval{}, false, nil
	}
	rule, ok := Match(cfg.Rules, c)
	if !ok {
		return domain.Approval{}, false, nil
	}
	reader, ok := ap.o.Store.(domain.ApprovalReader)
	if !ok {
		return domain.Approval{}, false, errors.New("approvals: this store keeps no approvals")
	}
	edge := Edge(rule, c)
	standing, err := reader.ListApprovals(ctx, domain.ApprovalQuery{Edge: edge, Decision: api.DecisionAllowAlways,
		Statuses: []domain.ApprovalStatus{domain.ApprovalAllowed}, Limit: 1})
	if err != nil {
		return domain.Approval{}, false, err
	}
	if len(standing) > 0 {
		return domain.Approval{}, false, nil
	}
	op := api.OpSessionsSend
	if c.Tool == ToolSpawn {
		op = api.OpSessionsSpawn
	}
	id := "apr_" + ap.o.NewID()
	if o.Key != "" {
		sum := sha256.Sum256([]byte(o.Key))
		id = "apr_" + hex.EncodeToString(sum[:12])
		if prior, err := reader.GetApproval(ctx, id); err == nil {
			return prior, true, nil
		} else if !errors.Is(err, domain.ErrNotFound) {
			return domain.Approval{}, false, err
		}
	}
	raw, err := json.Marshal(call)
	if err != nil {
		return domain.Approval{}, false, err
	}
	now := ap.stampMs()
	target := c.TargetKey
	if c.Tool == ToolSpawn {
		target = c.TargetAgent
	}
	a := domain.Approval{ID: id, Tool: string(op), Rule: rule, Edge: edge, RequesterKey: c.RequesterKey,
		RequesterAgent: c.RequesterAgent, TargetKey: target, TargetAgent: c.TargetAgent, Call: raw,
		Status: domain.ApprovalPending, CreatedAt: now, ExpiresAt: now + int64(cfg.ApprovalExpiry())*1000}
	a.Summary = Presentation(a, "").Description
	if err := ap.store(ctx, a, call.RunID); err != nil {
		return domain.Approval{}, false, fmt.Errorf("approvals: hold %s: %w", op, err)
	}
	ap.o.Log.Info("call held for approval", "approval", id, "tool", op, "from", c.RequesterKey, "to", target, "rule", rule)
	ap.publish(a)
	return a, true, nil
}

// store writes a pending approval and its outbox item, due at its
// expiry, in one transaction.
func (ap *Approver) store(ctx context.Context, a domain.Approval, runID string) error {
	return ap.o.Store.Update(ctx, func(tx domain.Tx) error {
		atx, ok := tx.(domain.ApprovalTx)
		if !ok {
			return errors.New("approvals: this store keeps no approvals")
		}
		if err := atx.PutApproval(a); err != nil {
			return err
		}
		payload, _ := json.Marshal(map[string]string{"approvalId": a.ID})
		_, _, err := tx.EnqueueOutbox(domain.OutboxItem{IdempotencyKey: "approval:" + a.ID, Kind: OutboxKind,
			SessionKey: a.RequesterKey, RunID: runID, Payload: payload, Status: domain.OutboxPending,
			NextAttemptAt: a.ExpiresAt, CreatedAt: a.CreatedAt})
		return err
	})
}

// await waits up to d for a's decision and returns a as it is then
// (still pending when none came).
func (ap *Approver) await(ctx context.Context, a domain.Approval, d time.Duration) domain.Approval {
	if d <= 0 {
		return a
	}
	ch, stop := ap.waiters.Wait(a.ID)
	defer stop()
	// A decision made between the hold and the Wait is in the store.
	if reader, ok := ap.o.Store.(domain.ApprovalReader); ok {
		if cur, err := reader.GetApproval(ctx, a.ID); err == nil && cur.Status != domain.ApprovalPending {
			return cur
		}
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case got := <-ch:
		return got
	case <-t.C:
	case <-ctx.Done():
	}
	return a
}

// AskResume asks the operators, when approvals are on (approvals.rules
// has rules), whether to resume the edge from → to the loop breaker just
// paused: an approval whose allow resumes the edge and releases its held
// messages, as `switchboard loops resume` does. A deny or an expiry
// leaves the edge paused. A failure to ask is logged: the pause stands
// anyway.
func (ap *Approver) AskResume(ctx context.Context, from, to, reason string) {
	cfg := ap.o.Config().Approvals
	if len(cfg.Rules) == 0 {
		return
	}
	raw, err := json.Marshal(heldCall{Resume: &loopEdge{From: from, To: to, Reason: reason}})
	if err != nil {
		return
	}
	now := ap.stampMs()
	a := domain.Approval{ID: "apr_" + ap.o.NewID(), Tool: ToolLoopsResume, Rule: -1, Edge: "loops.resume " + from + " → " + to,
		RequesterKey: from, RequesterAgent: ap.o.AgentOf(from), TargetKey: to, TargetAgent: ap.o.AgentOf(to), Call: raw,
		Status: domain.ApprovalPending, CreatedAt: now, ExpiresAt: now + int64(cfg.ApprovalExpiry())*1000}
	a.Summary = Presentation(a, reason).Description
	if err := ap.store(ctx, a, ""); err != nil {
		ap.o.Log.Error("approvals: could not ask to resume a paused edge", "from", from, "to", to, "err", err)
		return
	}
	ap.publish(a)
}
