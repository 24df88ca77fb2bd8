package approvals

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/switchboard-go/switchboard/internal/audit"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/outbox"
)

// auditEntry is the audit record of a decision on an approval (or its
// expiry), written in the transaction that records the decision.
func auditEntry(a domain.Approval) audit.Entry {
	outcome := a.Decision
	if a.Status == domain.ApprovalExpired {
		outcome = "expired"
	}
	return audit.Entry{Kind: audit.KindApproval, Actor: a.Resolver, Op: "approval.resolve", Session: a.RequesterKey,
		Target: a.ID, AgentID: a.RequesterAgent, Outcome: outcome,
		Detail: fmt.Sprintf("%s %s → %s (rule %d)", a.Tool, a.RequesterKey, a.TargetKey, a.Rule)}
}

// decide records the decision (or the expiry) of the pending approval
// id and makes its outbox item due; applied is false when it was decided
// already, and a is the approval as it stands.
func (ap *Approver) decide(ctx context.Context, id string, status domain.ApprovalStatus, decision, resolver string) (a domain.Approval, applied bool, err error) {
	changed := false
	err = ap.o.Store.Update(ctx, func(tx domain.Tx) error {
		applied, changed = false, false
		atx, ok := tx.(domain.ApprovalTx)
		if !ok {
			return errors.New("approvals: this store keeps no approvals")
		}
		cur, err := atx.GetApproval(id)
		if errors.Is(err, domain.ErrNotFound) {
			return domain.Errorf(domain.CodeNotFound, "approval %q not found", id)
		}
		if err != nil {
			return err
		}
		a = cur
		if cur.Status != domain.ApprovalPending {
			return nil
		}
		now := ap.nowMs()
		if status != domain.ApprovalExpired && now >= cur.ExpiresAt {
			// Past its deadline an approval fails closed, whoever answers.
			status, decision, resolver = domain.ApprovalExpired, "", "system"
		}
		cur.Status, cur.Decision, cur.Resolver, cur.ResolvedAt = status, decision, resolver, now
		if err := atx.PutApproval(cur); err != nil {
			return err
		}
		// EnqueueOutbox of an existing key returns its row: the held call.
		it, created, err := tx.EnqueueOutbox(domain.OutboxItem{IdempotencyKey: "approval:" + id, Kind: OutboxKind})
		if err != nil {
			return err
		}
		if created {
			return fmt.Errorf("approvals: approval %s has no held call", id)
		}
		if it.Status == domain.OutboxPending && it.NextAttemptAt > now {
			it.NextAttemptAt = now
			if err := tx.PutOutbox(it); err != nil {
				return err
			}
		}
		a, changed = cur, true
		applied = cur.Status == status && cur.Decision == decision
		return ap.o.Audit.RecordTx(tx, auditEntry(cur))
	})
	if err != nil {
		return a, false, err
	}
	if changed {
		ap.o.Log.Info("approval decided", "approval", a.ID, "status", a.Status, "decision", a.Decision, "resolver", a.Resolver,
			"tool", a.Tool, "from", a.RequesterKey, "to", a.TargetKey)
		ap.publish(a)
		ap.waiters.Decided(a)
		ap.o.Poke()
	}
	return a, applied, nil
}

// Deliver is the outbox delivery of a held call (OutboxKind): due when
// it was decided (or expired). It expires a pending approval past its
// deadline, carries an allowed call out as its requester (once: the
// replay's idempotency key is the approval's), and posts the outcome
// into the requester session.
func (ap *Approver) Deliver(ctx context.Context, it domain.OutboxItem) error {
	var ref struct {
		ApprovalID string `json:"approvalId"`
	}
	if err := json.Unmarshal(it.Payload, &ref); err != nil || ref.ApprovalID == "" {
		return fmt.Errorf("%w: approval item does not decode: %v", outbox.ErrPermanent, err)
	}
	reader, ok := ap.o.Store.(domain.ApprovalReader)
	if !ok {
		return fmt.Errorf("%w: this store keeps no approvals", outbox.ErrPermanent)
	}
	a, err := reader.GetApproval(ctx, ref.ApprovalID)
	if errors.Is(err, domain.ErrNotFound) {
		return fmt.Errorf("%w: approval %s is gone", outbox.ErrPermanent, ref.ApprovalID)
	}
	if err != nil {
		return err
	}
	if a.Status == domain.ApprovalPending {
		if ap.nowMs() < a.ExpiresAt {
			return fmt.Errorf("approval %s is pending until %d", a.ID, a.ExpiresAt)
		}
		if a, _, err = ap.decide(ctx, a.ID, domain.ApprovalExpired, "", "system"); err != nil {
			return err
		}
	}
	outcome, err := ap.carryOut(ctx, a)
	if err != nil {
		return err
	}
	return ap.post(ctx, a, outcome)
}

// carryOut replays the call a decided approval holds when it was
// allowed, and returns the outcome to tell its requester.
func (ap *Approver) carryOut(ctx context.Context, a domain.Approval) (string, error) {
	h := heldOf(a)
	if a.Status != domain.ApprovalAllowed {
		outcome := refusedText(a) + "."
		if h.Resume != nil {
			outcome = fmt.Sprintf("%s The edge %s → %s stays paused (switchboard loops resume resumes it).", outcome, h.Resume.From, h.Resume.To)
		}
		return outcome, nil
	}
	switch {
	case h.Send != nil:
		p := *h.Send
		zero := 0
		p.TimeoutSeconds, p.IdempotencyKey = &zero, ""
		res, err := ap.o.Send(ctx, a, p)
		if err != nil {
			return "", err
		}
		outcome := fmt.Sprintf("approval %s: an operator allowed the sessions_send to %s (%s); status %s", a.ID, a.TargetKey, a.Decision, res.Status)
		if res.RunID != "" {
			outcome += ", runId " + res.RunID
		}
		if res.Error != "" {
			outcome += ": " + res.Error
		}
		return outcome, nil
	case h.Spawn != nil:
		p := *h.Spawn
		p.IdempotencyKey = ""
		res, err := ap.o.Spawn(ctx, a, p)
		if err != nil {
			return fmt.Sprintf("approval %s: an operator allowed the sessions_spawn, but it failed: %s", a.ID, domain.ErrorMessage(err)), nil
		}
		return fmt.Sprintf("approval %s: an operator allowed the sessions_spawn (%s); status %s, childSessionKey %s, runId %s",
			a.ID, a.Decision, res.Status, res.ChildSessionKey, res.RunID), nil
	case h.Resume != nil:
		n, err := ap.o.Resume(ctx, h.Resume.From, h.Resume.To)
		if err != nil && domain.ErrorCode(err) != domain.CodeNotFound {
			return "", err
		}
		return fmt.Sprintf("approval %s: an operator resumed the paused edge %s → %s; %d held message(s) released", a.ID, h.Resume.From, h.Resume.To, n), nil
	}
	return "", fmt.Errorf("%w: approval %s holds no call", outbox.ErrPermanent, a.ID)
}

// post writes the outcome of a held call into its requester session,
// where the agent reads it on its next turn (as it learns of a
// fire-and-forget send's reply).
func (ap *Approver) post(ctx context.Context, a domain.Approval, text string) error {
	msg := domain.Message{Role: domain.RoleUser, Content: domain.TextContent(text),
		Provenance: &domain.Provenance{Kind: domain.ProvenanceInternalSystem, SourceTool: a.Tool}}
	return ap.o.Post(ctx, a.RequesterKey, msg)
}
