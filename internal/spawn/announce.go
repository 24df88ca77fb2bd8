package spawn

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-go/switchboard/internal/attachments"
	"github.com/switchboard-go/switchboard/internal/delivery"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/outbox"
	"github.com/switchboard-go/switchboard/internal/runs"
	"github.com/switchboard-go/switchboard/internal/runspec"
	"github.com/switchboard-go/switchboard/internal/sessions"
	"github.com/switchboard-go/switchboard/internal/subagent"
)

// Finished records a child's end on its session and, in the same
// transaction, queues its announce (and archive) in the outbox.
func (sp *Spawner) Finished(tx domain.Tx, run domain.Run, spec runspec.Spec) error {
	if spec.Spawn == nil {
		// A child run always carries its spawn spec; without one its
		// announce cannot be addressed.
		sp.log.Error("sub-agent run without a spawn spec: no announce", "run", run.ID)
		return nil
	}
	now := sp.nowMs()
	s, err := tx.GetSession(run.SessionKey)
	if err == nil {
		s.Status = subagent.ChildStatus(run.Status)
		s.EndedAt = now
		if s.StartedAt == 0 {
			s.StartedAt = run.StartedAt
		}
		if err := tx.PutSession(s); err != nil {
			return err
		}
	} else if !errors.Is(err, domain.ErrNotFound) {
		return err
	}
	payload, err := subagent.EncodePayload(subagent.Payload{ChildKey: run.SessionKey, Spawn: *spec.Spawn})
	if err != nil {
		return err
	}
	if _, _, err := tx.EnqueueOutbox(domain.OutboxItem{
		IdempotencyKey: "subagent-announce:" + run.ID, Kind: domain.OutboxSubagentAnnounce,
		SessionKey: spec.Spawn.RequesterKey, RunID: run.ID, Channel: spec.Spawn.RequesterChannel,
		Payload: payload, Status: domain.OutboxPending, NextAttemptAt: now, CreatedAt: now,
	}); err != nil {
		return err
	}
	due, ok := subagent.ArchiveAt(*spec.Spawn, sp.cfg.Agents.Defaults.Subagents.ArchiveAfterMinutes, now)
	if !ok {
		return nil
	}
	if s.Key != "" {
		s.ArchiveAt = due
		if err := tx.PutSession(s); err != nil {
			return err
		}
	}
	_, _, err = tx.EnqueueOutbox(domain.OutboxItem{
		IdempotencyKey: "archive:" + run.ID, Kind: domain.OutboxCleanup, SessionKey: run.SessionKey, RunID: run.ID,
		Payload: []byte(`{"action":"archive"}`), Status: domain.OutboxPending, NextAttemptAt: due, CreatedAt: now,
	})
	return err
}

// requesterDelivery is where the requester's reply to a sub-agent's
// announce is delivered: the requester's external channel and its
// recipient there (best effort: nil when the requester has no external
// channel or no recipient on it, and its reply stays in its transcript).
func (sp *Spawner) requesterDelivery(ctx context.Context, key, channel string) *delivery.Target {
	s, err := sp.store.GetSession(ctx, key)
	if err != nil {
		return nil
	}
	if channel == "" {
		channel = sessions.ChannelOf(s)
	}
	to := delivery.RecipientOn(s, channel)
	if !delivery.Deliverable(channel) || to == "" {
		return nil
	}
	return &delivery.Target{Channel: channel, To: to}
}

// DeliverAnnounce posts a child's result to its requester session
// as an inbound message (the requester agent gets a turn to act on it).
// The inbound run's idempotency key makes a repeated delivery a no-op.
func (sp *Spawner) DeliverAnnounce(ctx context.Context, item domain.OutboxItem) error {
	p, err := subagent.DecodePayload(item.Payload)
	if err != nil {
		return outbox.Permanent(err)
	}
	run, err := sp.store.GetRun(ctx, item.RunID)
	if err != nil {
		return err
	}
	child, err := sp.store.GetSession(ctx, p.ChildKey)
	if err != nil && !errors.Is(err, domain.ErrNotFound) {
		return err
	}
	if !subagent.Skipped(run) {
		var transcript func() ([]domain.Message, error)
		if child.Key != "" {
			transcript = func() ([]domain.Message, error) {
				return sp.store.ReadMessages(ctx, child.Key, domain.MessageQuery{SessionID: run.SessionID, Limit: 50})
			}
		}
		result, notes, err := subagent.Result(run, transcript)
		if err != nil {
			return err
		}
		a := subagent.Announce{Run: run, Spec: p.Spawn, Result: result, Notes: notes}
		if accts, err := sp.store.GetAccounts(ctx, []string{p.ChildKey}); err == nil {
			acct := accts[p.ChildKey]
			a.Account = &acct
		}
		if child.Key != "" {
			a.TranscriptPath = sp.sessions.RelTranscriptPath(child)
		}
		text := a.Text()
		msg := subagent.Message(text, p.ChildKey, run.ID)
		raw, err := runspec.Encode(runspec.Spec{Spec: runs.Spec{UserMessage: &msg}, System: subagent.AnnounceSystem,
			Deliver: sp.requesterDelivery(ctx, p.Spawn.RequesterKey, p.Spawn.RequesterChannel), TraceParent: traceParentOr(ctx, run)})
		if err != nil {
			return err
		}
		// The announce turn is a follow-up of the child's run.
		_, _, err = sp.rt.Submit(runs.FollowUpOf(ctx, run.ID), domain.Run{SessionKey: p.Spawn.RequesterKey, AgentID: sp.keys.AgentOf(p.Spawn.RequesterKey),
			Kind: domain.RunKindInbound, Lane: domain.LaneMain, RequesterKey: p.ChildKey,
			IdempotencyKey: "subagent-announce:" + run.ID, Message: text, Spec: raw},
			func(tx domain.Tx) error {
				_, _, err := sp.sessions.Ensure(tx, p.Spawn.RequesterKey, nil)
				return err
			})
		if err != nil {
			return err
		}
		sp.log.Info("sub-agent announce delivered", "child", p.ChildKey, "requester", p.Spawn.RequesterKey, "status", subagent.AnnounceStatus(run.Status))
	} else {
		sp.log.Info("sub-agent announce skipped ("+strings.TrimSpace(run.Reply)+")", "child", p.ChildKey)
	}
	// Lifecycle cleanup after the announce.
	if subagent.RemoveAttachments(p.Spawn) {
		if err := attachments.SafeRemove(p.Spawn.AttachmentsRoot, p.Spawn.AttachmentsDir); err != nil {
			sp.log.Warn("attachments cleanup refused", "dir", p.Spawn.AttachmentsDir, "err", err)
		}
	}
	if subagent.DeleteChild(p.Spawn) && child.Key != "" {
		if err := sp.sessions.Delete(ctx, child.Key); err != nil && !errors.Is(err, domain.ErrNotFound) {
			return fmt.Errorf("delete sub-agent session: %w", err)
		}
	}
	return nil
}
