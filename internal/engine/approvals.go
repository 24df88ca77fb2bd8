package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/approvals"
	"github.com/switchboard-go/switchboard/internal/audit"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/outbox"
)

// outboxApproval is a call held for an operator's decision: an outbox
// item due at the approval's expiry, or at once when it is decided. Its
// delivery carries the held call out (allowed) and tells the requester
// session the outcome, so a decision survives a restart and the call
// runs once: the replay's idempotency key is the approval's.
const outboxApproval domain.OutboxKind = "approval"

// heldCall is the call an approval holds, replayed as it was made.
type heldCall struct {
	Send  *api.SendRequest  `json:"send,omitempty"`
	Spawn *api.SpawnRequest `json:"spawn,omitempty"`
	// Resume is a paused edge of the loop breaker to resume.
	Resume *loopEdge `json:"resume,omitempty"`
	// RunID is the requester's run that made the call.
	RunID string `json:"runId,omitempty"`
}

func heldOf(a domain.Approval) heldCall {
	var h heldCall
	_ = json.Unmarshal(a.Call, &h)
	return h
}

// holdSend is the approval gate of sessions_send: a send an
// approvals.rules entry matches is held; with timeoutSeconds > 0 the
// call waits within it for the decision.
func (e *Engine) holdSend(ctx context.Context, req Requester, p api.SendRequest, target, display, channel, chatType string) (api.SendResult, bool, error) {
	targetAgent := e.keys.AgentOf(target)
	c := approvals.Call{Tool: approvals.ToolSend, RequesterKey: req.key(e), RequesterAgent: req.agent(e),
		TargetKey: target, TargetAgent: targetAgent, TargetChannel: channel, ChatType: chatType, Remote: e.sessions.IsRemote(targetAgent)}
	p.SessionKey, p.Label, p.AgentID = target, "", ""
	a, held, err := e.holdForApproval(ctx, req, c, heldCall{Send: &p, RunID: req.RunID}, p.IdempotencyKey)
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
		start := e.now()
		if a = e.awaitDecision(ctx, a, time.Duration(wait)*time.Second); a.Status == domain.ApprovalAllowed {
			left := max(0, int(wait)-int(e.now().Sub(start)/time.Second))
			p.TimeoutSeconds = &left
			res, err := e.send(ctx, approvedAs(req, a), p)
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
		res, err := e.send(ctx, approvedAs(req, a), p)
		res.ApprovalID = a.ID
		return res, true, err
	}
	return api.SendResult{Status: "forbidden", ApprovalID: a.ID, SessionKey: display, Error: refusedText(a)}, true, nil
}

// holdSpawn is the approval gate of sessions_spawn of agent: a spawn is
// never waited for, so a held one answers pending_approval at once.
func (e *Engine) holdSpawn(ctx context.Context, req Requester, p api.SpawnRequest, agent string) (api.SpawnResult, bool, error) {
	c := approvals.Call{Tool: approvals.ToolSpawn, RequesterKey: req.key(e), RequesterAgent: req.agent(e), TargetAgent: agent}
	a, held, err := e.holdForApproval(ctx, req, c, heldCall{Spawn: &p, RunID: req.RunID}, p.IdempotencyKey)
	if !held || err != nil {
		return api.SpawnResult{}, held, err
	}
	p.IdempotencyKey = ""
	switch a.Status {
	case domain.ApprovalPending:
		return api.SpawnResult{Status: api.StatusPendingApproval, ApprovalID: a.ID, Note: pendingText(a)}, true, nil
	case domain.ApprovalAllowed:
		res, err := e.spawn(ctx, approvedAs(req, a), p)
		res.ApprovalID = a.ID
		return res, true, err
	}
	return api.SpawnResult{}, true, domain.Errorf(domain.CodeForbidden, "%s", refusedText(a))
}

func pendingText(a domain.Approval) string {
	return fmt.Sprintf("held for an operator's approval (approval %s, expires in %s); the outcome is posted into this session",
		a.ID, time.Duration(a.ExpiresAt-a.CreatedAt)*time.Millisecond)
}

func refusedText(a domain.Approval) string {
	if a.Status == domain.ApprovalExpired {
		return fmt.Sprintf("approval %s expired without a decision: the %s was not carried out", a.ID, a.Tool)
	}
	return fmt.Sprintf("approval %s: an operator denied the %s", a.ID, a.Tool)
}

// approvedAs is the requester that carries out an allowed call: the
// gate lets it through, and its idempotency key is the approval's, so
// the waiting tool call and the outbox's replay make one run between
// them.
func approvedAs(req Requester, a domain.Approval) Requester {
	req.SessionKey, req.resolved = a.RequesterKey, a.RequesterKey
	req.IdempotencyKey, req.scoped, req.approved = "approval:"+a.ID, true, a.ID
	return req
}

// holdForApproval holds call when an approvals rule matches it and no
// allow-always of its edge stands: it stores the approval and its outbox
// item together and tells the operators. A call with an idempotency key
// finds the approval its first attempt raised.
func (e *Engine) holdForApproval(ctx context.Context, req Requester, c approvals.Call, call heldCall, idemKey string) (domain.Approval, bool, error) {
	cfg := e.conf().Approvals
	if req.Operator || req.approved != "" || len(cfg.Rules) == 0 {
		return domain.Approval{}, false, nil
	}
	rule, ok := approvals.Match(cfg.Rules, c)
	if !ok {
		return domain.Approval{}, false, nil
	}
	reader, ok := e.store.(domain.ApprovalReader)
	if !ok {
		return domain.Approval{}, false, errors.New("approvals: this store keeps no approvals")
	}
	edge := approvals.Edge(rule, c)
	standing, err := reader.ListApprovals(ctx, domain.ApprovalQuery{Edge: edge, Decision: api.DecisionAllowAlways,
		Statuses: []domain.ApprovalStatus{domain.ApprovalAllowed}, Limit: 1})
	if err != nil {
		return domain.Approval{}, false, err
	}
	if len(standing) > 0 {
		return domain.Approval{}, false, nil
	}
	op := api.OpSessionsSend
	if c.Tool == approvals.ToolSpawn {
		op = api.OpSessionsSpawn
	}
	id := "apr_" + e.newID()
	if idemKey != "" {
		sum := sha256.Sum256([]byte(req.scopeKey(op, idemKey)))
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
	now := e.nowMs()
	target := c.TargetKey
	if c.Tool == approvals.ToolSpawn {
		target = c.TargetAgent
	}
	a := domain.Approval{ID: id, Tool: string(op), Rule: rule, Edge: edge, RequesterKey: c.RequesterKey,
		RequesterAgent: c.RequesterAgent, TargetKey: target, TargetAgent: c.TargetAgent, Call: raw,
		Status: domain.ApprovalPending, CreatedAt: now, ExpiresAt: now + int64(cfg.ApprovalExpiry())*1000}
	a.Summary = approvals.Presentation(a, "").Description
	err = e.store.Update(ctx, func(tx domain.Tx) error {
		atx, ok := tx.(domain.ApprovalTx)
		if !ok {
			return errors.New("approvals: this store keeps no approvals")
		}
		if err := atx.PutApproval(a); err != nil {
			return err
		}
		payload, _ := json.Marshal(map[string]string{"approvalId": id})
		_, _, err := tx.EnqueueOutbox(domain.OutboxItem{IdempotencyKey: "approval:" + id, Kind: outboxApproval,
			SessionKey: a.RequesterKey, RunID: call.RunID, Payload: payload, Status: domain.OutboxPending,
			NextAttemptAt: a.ExpiresAt, CreatedAt: now})
		return err
	})
	if err != nil {
		return domain.Approval{}, false, fmt.Errorf("approvals: hold %s: %w", op, err)
	}
	e.log.Info("call held for approval", "approval", id, "tool", op, "from", c.RequesterKey, "to", target, "rule", rule)
	e.publishApproval(a)
	return a, true, nil
}

// awaitDecision waits up to d for a's decision and returns a as it is
// then (still pending when none came).
func (e *Engine) awaitDecision(ctx context.Context, a domain.Approval, d time.Duration) domain.Approval {
	if d <= 0 {
		return a
	}
	ch, stop := e.approvalWaiters.Wait(a.ID)
	defer stop()
	// A decision made between the hold and the Wait is in the store.
	if reader, ok := e.store.(domain.ApprovalReader); ok {
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

func (e *Engine) publishApproval(a domain.Approval) {
	e.bus.publish(domain.Event{Kind: domain.EventApproval, SessionKey: a.RequesterKey, Approval: &a, TS: e.nowMs()})
}

// approvalEntry is the audit record of a decision on an approval (or its
// expiry), written in the transaction that records the decision.
func approvalEntry(a domain.Approval) audit.Entry {
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
func (e *Engine) decide(ctx context.Context, id string, status domain.ApprovalStatus, decision, resolver string) (a domain.Approval, applied bool, err error) {
	changed := false
	err = e.store.Update(ctx, func(tx domain.Tx) error {
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
		now := e.nowMs()
		if status != domain.ApprovalExpired && now >= cur.ExpiresAt {
			// Past its deadline an approval fails closed, whoever answers.
			status, decision, resolver = domain.ApprovalExpired, "", "system"
		}
		cur.Status, cur.Decision, cur.Resolver, cur.ResolvedAt = status, decision, resolver, now
		if err := atx.PutApproval(cur); err != nil {
			return err
		}
		// EnqueueOutbox of an existing key returns its row: the held call.
		it, created, err := tx.EnqueueOutbox(domain.OutboxItem{IdempotencyKey: "approval:" + id, Kind: outboxApproval})
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
		return e.audit.RecordTx(tx, approvalEntry(cur))
	})
	if err != nil {
		return a, false, err
	}
	if changed {
		e.log.Info("approval decided", "approval", a.ID, "status", a.Status, "decision", a.Decision, "resolver", a.Resolver,
			"tool", a.Tool, "from", a.RequesterKey, "to", a.TargetKey)
		e.publishApproval(a)
		e.approvalWaiters.Decided(a)
		e.deliveries.Poke()
	}
	return a, applied, nil
}

// deliverApproval is the outbox delivery of a held call: due when it was
// decided (or expired). It expires a pending approval past its deadline,
// carries an allowed call out as its requester (once: the replay's
// idempotency key is the approval's), and posts the outcome into the
// requester session.
func (e *Engine) deliverApproval(ctx context.Context, it domain.OutboxItem) error {
	var ref struct {
		ApprovalID string `json:"approvalId"`
	}
	if err := json.Unmarshal(it.Payload, &ref); err != nil || ref.ApprovalID == "" {
		return fmt.Errorf("%w: approval item does not decode: %v", outbox.ErrPermanent, err)
	}
	reader, ok := e.store.(domain.ApprovalReader)
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
		if e.nowMs() < a.ExpiresAt {
			return fmt.Errorf("approval %s is pending until %d", a.ID, a.ExpiresAt)
		}
		if a, _, err = e.decide(ctx, a.ID, domain.ApprovalExpired, "", "system"); err != nil {
			return err
		}
	}
	h := heldOf(a)
	outcome := refusedText(a) + "."
	if a.Status == domain.ApprovalAllowed {
		// Outside the requester's run (its tool call has returned): the
		// send starts no reply-back turns into it.
		req := approvedAs(Requester{}, a)
		switch {
		case h.Send != nil:
			p := *h.Send
			zero := 0
			p.TimeoutSeconds, p.IdempotencyKey = &zero, ""
			res, err := e.send(ctx, req, p)
			if err != nil {
				return err
			}
			outcome = fmt.Sprintf("approval %s: an operator allowed the sessions_send to %s (%s); status %s", a.ID, a.TargetKey, a.Decision, res.Status)
			if res.RunID != "" {
				outcome += ", runId " + res.RunID
			}
			if res.Error != "" {
				outcome += ": " + res.Error
			}
		case h.Spawn != nil:
			p := *h.Spawn
			p.IdempotencyKey = ""
			res, err := e.spawn(ctx, req, p)
			if err != nil {
				outcome = fmt.Sprintf("approval %s: an operator allowed the sessions_spawn, but it failed: %s", a.ID, domain.ErrorMessage(err))
				break
			}
			outcome = fmt.Sprintf("approval %s: an operator allowed the sessions_spawn (%s); status %s, childSessionKey %s, runId %s",
				a.ID, a.Decision, res.Status, res.ChildSessionKey, res.RunID)
		case h.Resume != nil:
			n, err := e.guards.Resume(ctx, h.Resume.From, h.Resume.To)
			if err != nil && domain.ErrorCode(err) != domain.CodeNotFound {
				return err
			}
			outcome = fmt.Sprintf("approval %s: an operator resumed the paused edge %s → %s; %d held message(s) released", a.ID, h.Resume.From, h.Resume.To, n)
		default:
			return fmt.Errorf("%w: approval %s holds no call", outbox.ErrPermanent, a.ID)
		}
	} else if h.Resume != nil {
		outcome = fmt.Sprintf("%s The edge %s → %s stays paused (switchboard loops resume resumes it).", outcome, h.Resume.From, h.Resume.To)
	}
	return e.postOutcome(ctx, a, outcome)
}

// postOutcome writes the outcome of a held call into its requester
// session, where the agent reads it on its next turn (as it learns of a
// fire-and-forget send's reply).
func (e *Engine) postOutcome(ctx context.Context, a domain.Approval, text string) error {
	msg := domain.Message{Role: domain.RoleUser, Content: domain.TextContent(text),
		Provenance: &domain.Provenance{Kind: domain.ProvenanceInternalSystem, SourceTool: a.Tool}}
	_, err := e.rt.Inject(ctx, a.RequesterKey, []domain.Message{msg}, func(tx domain.Tx) (domain.Session, error) {
		s, _, err := e.sessions.Ensure(tx, a.RequesterKey, nil)
		return s, err
	})
	return err
}

// ApprovalGet is approval.get: one approval by its full id.
func (e *Engine) ApprovalGet(ctx context.Context, p api.Principal, r api.ApprovalGetRequest) (api.ApprovalGetResult, error) {
	if _, err := e.enter(p, api.OpApprovalGet); err != nil {
		return api.ApprovalGetResult{}, err
	}
	id := strings.TrimSpace(r.ID)
	if id == "" {
		return api.ApprovalGetResult{}, domain.Invalid("id is required")
	}
	reader, ok := e.store.(domain.ApprovalReader)
	if !ok {
		return api.ApprovalGetResult{}, domain.Errorf(domain.CodeNotFound, "approval %q not found", id)
	}
	a, err := reader.GetApproval(ctx, id)
	if errors.Is(err, domain.ErrNotFound) {
		return api.ApprovalGetResult{}, domain.Errorf(domain.CodeNotFound, "approval %q not found", id)
	}
	if err != nil {
		return api.ApprovalGetResult{}, err
	}
	return api.ApprovalGetResult{Approval: approvals.Snapshot(a)}, nil
}

// ApprovalResolve is approval.resolve: the first decision on a pending
// approval is recorded; later ones answer applied=false with the
// approval as it stands.
func (e *Engine) ApprovalResolve(ctx context.Context, p api.Principal, r api.ApprovalResolveRequest) (api.ApprovalResolveResult, error) {
	if _, err := e.enter(p, api.OpApprovalResolve); err != nil {
		return api.ApprovalResolveResult{}, err
	}
	id := strings.TrimSpace(r.ID)
	if id == "" {
		return api.ApprovalResolveResult{}, domain.Invalid("id is required")
	}
	if r.Kind != api.ApprovalKindPlugin {
		return api.ApprovalResolveResult{}, domain.Invalid("kind %q: switchboard's approvals are of kind %q", r.Kind, api.ApprovalKindPlugin)
	}
	status := domain.ApprovalAllowed
	switch r.Decision {
	case api.DecisionAllowOnce, api.DecisionAllowAlways:
	case api.DecisionDeny:
		status = domain.ApprovalDenied
	default:
		return api.ApprovalResolveResult{}, domain.Invalid("decision %q: use %s, %s or %s", r.Decision, api.DecisionAllowOnce, api.DecisionAllowAlways, api.DecisionDeny)
	}
	if r.GrantExpiresInDays != nil && (*r.GrantExpiresInDays < 1 || *r.GrantExpiresInDays > 3650) {
		return api.ApprovalResolveResult{}, domain.Invalid("grantExpiresInDays %d must be between 1 and 3650", *r.GrantExpiresInDays)
	}
	resolver := "device:" + p.Name
	if rv := r.Reviewer; rv != nil {
		resolver = "channel:" + rv.Channel + "/" + rv.SenderID
	}
	a, applied, err := e.decide(ctx, id, status, r.Decision, resolver)
	if err != nil {
		return api.ApprovalResolveResult{}, err
	}
	return api.ApprovalResolveResult{Applied: applied, Approval: approvals.Snapshot(a)}, nil
}

// ApprovalList is approval.list (switchboard's): the pending approvals,
// newest first.
func (e *Engine) ApprovalList(ctx context.Context, p api.Principal, _ api.ApprovalListRequest) (api.ApprovalListResult, error) {
	if _, err := e.enter(p, api.OpApprovalList); err != nil {
		return api.ApprovalListResult{}, err
	}
	items, _, err := e.listApprovals(ctx, []domain.ApprovalStatus{domain.ApprovalPending}, 0, 1000)
	return api.ApprovalListResult{Items: items}, err
}

// ApprovalHistory is approval.history: decided approvals, newest first,
// a page at a time (the cursor is where the next page starts).
func (e *Engine) ApprovalHistory(ctx context.Context, p api.Principal, r api.ApprovalHistoryRequest) (api.ApprovalHistoryResult, error) {
	if _, err := e.enter(p, api.OpApprovalHistory); err != nil {
		return api.ApprovalHistoryResult{}, err
	}
	limit := api.ApprovalHistoryLimit.Default
	if r.Limit != nil {
		n, err := api.ApprovalHistoryLimit.Apply(int64(*r.Limit))
		if err != nil {
			return api.ApprovalHistoryResult{}, err
		}
		limit = n
	}
	offset := 0
	if r.Cursor != "" {
		n, err := strconv.Atoi(r.Cursor)
		if err != nil || n < 0 {
			return api.ApprovalHistoryResult{}, domain.Invalid("cursor %q is not a cursor approval.history returned", r.Cursor)
		}
		offset = n
	}
	out := api.ApprovalHistoryResult{Items: []api.ApprovalSnapshot{}}
	if r.Kind != "" && r.Kind != api.ApprovalKindPlugin {
		return out, nil
	}
	items, more, err := e.listApprovals(ctx, []domain.ApprovalStatus{domain.ApprovalAllowed, domain.ApprovalDenied,
		domain.ApprovalExpired, domain.ApprovalCancelled}, offset, int(limit))
	if err != nil {
		return out, err
	}
	out.Items = items
	if more {
		out.NextCursor = strconv.Itoa(offset + len(items))
	}
	return out, nil
}

// listApprovals reads a page of approvals and whether more follow.
func (e *Engine) listApprovals(ctx context.Context, statuses []domain.ApprovalStatus, offset, limit int) ([]api.ApprovalSnapshot, bool, error) {
	out := []api.ApprovalSnapshot{}
	reader, ok := e.store.(domain.ApprovalReader)
	if !ok {
		return out, false, nil
	}
	rows, err := reader.ListApprovals(ctx, domain.ApprovalQuery{Statuses: statuses, Offset: offset, Limit: limit + 1})
	if err != nil {
		return out, false, err
	}
	more := len(rows) > limit
	if more {
		rows = rows[:limit]
	}
	for _, a := range rows {
		out = append(out, approvals.Snapshot(a))
	}
	return out, more, nil
}
