package engine

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/policy"
	"github.com/switchboard-go/switchboard/internal/sessionkey"
)

// resolveLabelLimit bounds how many sessions a label lookup reads: more
// than one match is an error, so a handful tells ambiguity apart.
const resolveLabelLimit = 10

// Resolve finds a session by exactly one of key, sessionId or label. A
// session the principal may not see answers exactly as an unknown one,
// and ambiguity is decided among the sessions it may see.
func (e *Engine) Resolve(ctx context.Context, p api.Principal, r api.ResolveRequest) (_ api.ResolveResult, err error) {
	defer e.audited(ctx, p, api.OpSessionsResolve, "", &err)
	req, err := e.enter(p, api.OpSessionsResolve)
	if err != nil {
		return api.ResolveResult{}, err
	}
	key, sessionID, label := strings.TrimSpace(r.Key), strings.TrimSpace(r.SessionID), strings.TrimSpace(r.Label)
	n := 0
	for _, s := range []string{key, sessionID, label} {
		if s != "" {
			n++
		}
	}
	switch {
	case n > 1:
		return api.ResolveResult{}, domain.Invalid("Provide either key, sessionId, or label (not multiple)")
	case n == 0:
		return api.ResolveResult{}, domain.Invalid("Either key, sessionId, or label is required")
	}
	var candidates []string
	var notFound error
	switch {
	case key != "":
		notFound = domain.Errorf(domain.CodeNotFound, "No session found: %s", key)
		k, err := e.resolveRef(ctx, req, key)
		if err != nil {
			if domain.ErrorCode(err) == domain.CodeNotFound {
				return api.ResolveResult{}, notFound
			}
			return api.ResolveResult{}, err
		}
		if _, err := e.store.GetSession(ctx, k); err != nil {
			if errors.Is(err, domain.ErrNotFound) {
				return api.ResolveResult{}, notFound
			}
			return api.ResolveResult{}, err
		}
		candidates = []string{k}
	case sessionID != "":
		notFound = domain.Errorf(domain.CodeNotFound, "No session found: %s", sessionID)
		rows, err := e.sessions.FindByID(ctx, sessionID)
		if err != nil {
			return api.ResolveResult{}, err
		}
		for _, s := range rows {
			candidates = append(candidates, s.Key)
		}
	default:
		if err := api.CheckLabel(label); err != nil {
			return api.ResolveResult{}, err
		}
		notFound = domain.Errorf(domain.CodeNotFound, "No session found with label: %s", label)
		q := domain.SessionQuery{Label: label, Limit: resolveLabelLimit}
		if a := strings.TrimSpace(r.AgentID); a != "" {
			q.AgentIDs = []string{sessionkey.NormalizeAgentID(a)}
		}
		rows, err := e.store.ListSessions(ctx, q)
		if err != nil {
			return api.ResolveResult{}, err
		}
		for _, s := range rows {
			candidates = append(candidates, s.Key)
		}
	}
	visible := candidates[:0]
	for _, k := range candidates {
		if e.target(ctx, req, k, policy.ActionHistory) == nil {
			visible = append(visible, k)
		}
	}
	switch len(visible) {
	case 0:
		return api.ResolveResult{}, notFound
	case 1:
		return api.ResolveResult{Key: visible[0]}, nil
	}
	what := "for sessionId: " + sessionID
	if label != "" {
		what = "with label: " + label
	}
	return api.ResolveResult{}, domain.Invalid("Multiple sessions found %s (%s)", what, strings.Join(visible, ", "))
}

// GetSession returns the row of one session the principal may see (ref:
// a key, `main` or a sessionId); one it may not see is not found, worded
// as an unknown one.
func (e *Engine) GetSession(ctx context.Context, p api.Principal, ref string) (_ api.SessionRow, err error) {
	defer e.audited(ctx, p, api.OpSessionsGet, ref, &err)
	req, err := e.enter(p, api.OpSessionsGet)
	if err != nil {
		return api.SessionRow{}, err
	}
	notFound := domain.Errorf(domain.CodeNotFound, "No session found: %s", strings.TrimSpace(ref))
	key, err := e.resolveRef(ctx, req, ref)
	if err != nil {
		if domain.ErrorCode(err) == domain.CodeNotFound {
			return api.SessionRow{}, notFound
		}
		return api.SessionRow{}, err
	}
	if e.target(ctx, req, key, policy.ActionHistory) != nil {
		return api.SessionRow{}, notFound
	}
	s, err := e.store.GetSession(ctx, key)
	if errors.Is(err, domain.ErrNotFound) {
		return api.SessionRow{}, notFound
	}
	if err != nil {
		return api.SessionRow{}, err
	}
	r := []api.SessionRow{e.row(s, req)}
	if err := e.budgets.Attach(ctx, r, []domain.Session{s}); err != nil {
		return api.SessionRow{}, err
	}
	return r[0], nil
}

// SubscribeKey is the canonical key sessions.messages.subscribe may
// subscribe p to: ref resolved as GetSession resolves it, and visible to p
// by GetSession's rule — whether or not the session exists yet, so a
// client can subscribe before its first chat.send creates it. A ref p
// could not see answers GetSession's "No session found" whether or not a
// session has it, so the answer reveals no more than GetSession does.
func (e *Engine) SubscribeKey(ctx context.Context, p api.Principal, ref string) (_ string, err error) {
	defer e.audited(ctx, p, api.OpSessionsGet, ref, &err)
	req, err := e.enter(p, api.OpSessionsGet)
	if err != nil {
		return "", err
	}
	notFound := domain.Errorf(domain.CodeNotFound, "No session found: %s", strings.TrimSpace(ref))
	key, err := e.resolveRef(ctx, req, ref)
	if err != nil {
		if domain.ErrorCode(err) == domain.CodeNotFound {
			return "", notFound
		}
		return "", err
	}
	if e.target(ctx, req, key, policy.ActionHistory) != nil {
		return "", notFound
	}
	return key, nil
}

// Defaults are the session defaults as the principal sees them: its
// requester's main session and model (the operator's: the default
// agent's).
func (e *Engine) Defaults(ctx context.Context, p api.Principal) (_ api.Defaults, err error) {
	defer e.audited(ctx, p, api.OpDefaults, "", &err)
	req, err := e.enter(p, api.OpDefaults)
	if err != nil {
		return api.Defaults{}, err
	}
	agent := req.agent(e)
	scope := e.cfg.Session.Scope
	if scope == "" {
		scope = "per-sender"
	}
	d := api.Defaults{
		DefaultAgentID: e.cfg.DefaultAgentID(),
		MainKey:        e.cfg.MainKey(),
		MainSessionKey: sessionkey.Key{AgentID: agent, Rest: e.cfg.MainKey()}.String(),
		Scope:          scope,
		Model:          e.conf().AgentModel(agent),
	}
	if path := e.TranscriptPath(domain.Session{AgentID: "{agentId}", SessionID: "x"}); path != "" && req.Operator {
		d.TranscriptPath = filepath.Dir(path)
	}
	return d, nil
}

// Deliver queues a direct outbound message (operator only). Its
// idempotency key is scoped to the caller.
func (e *Engine) Deliver(ctx context.Context, p api.Principal, r api.DeliverRequest) (_ api.DeliverResult, err error) {
	defer e.audited(ctx, p, api.OpDeliver, "", &err)
	req, err := e.enter(p, api.OpDeliver)
	if err != nil {
		return api.DeliverResult{}, err
	}
	if err := api.CheckIdempotencyKey(r.IdempotencyKey); err != nil {
		return api.DeliverResult{}, err
	}
	r.IdempotencyKey = req.scopeKey(api.OpDeliver, r.IdempotencyKey)
	item, err := e.queueDelivery(ctx, r)
	if err != nil {
		return api.DeliverResult{}, err
	}
	return api.DeliverResult{MessageID: strconv.FormatInt(item.ID, 10), Channel: item.Channel, To: item.To,
		Status: "queued", SessionKey: item.SessionKey}, nil
}
