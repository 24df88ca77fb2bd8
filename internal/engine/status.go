package engine

import (
	"context"
	"errors"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/policy"
)

// ModelDefault is session_status's model value that clears the override.
const ModelDefault = "default"

// SessionStatus is session_status as the principal: the status card of the
// requester's session or of one it may see (the visibility of
// sessions_history), and with Model a switch of that session's model
// override, gated like sessions.patch (its scope, the same visibility).
func (e *Engine) SessionStatus(ctx context.Context, p api.Principal, r api.StatusRequest) (api.StatusResult, error) {
	op := api.OpSessionStatus
	model := strings.TrimSpace(r.Model)
	if r.Model != "" {
		if model == "" {
			return api.StatusResult{}, domain.Invalid("model must not be blank (a provider/model reference, or %q to clear the override)", ModelDefault)
		}
		if err := api.ModelChars.CheckChars(model); err != nil {
			return api.StatusResult{}, err
		}
		op = api.OpSessionStatusModel
	}
	req, err := e.enter(p, op)
	if err != nil {
		return api.StatusResult{}, err
	}
	if err := api.KeyChars.CheckChars(r.SessionKey); err != nil {
		return api.StatusResult{}, err
	}
	ref := strings.TrimSpace(r.SessionKey)
	if ref == "" {
		ref = req.key(e)
	}
	key, err := e.resolveRef(ctx, req, ref)
	if err != nil {
		return api.StatusResult{}, err
	}
	if err := e.target(ctx, req, key, policy.ActionStatus); err != nil {
		return api.StatusResult{}, err
	}
	changed := false
	if model != "" && e.isRemote(e.keys.AgentOf(key)) {
		return api.StatusResult{}, domain.Invalid("model cannot be switched for %s: a remote agent's session runs on that agent, over A2A", key)
	}
	if model != "" {
		// "default" clears the override: sessions.patch {model: null}.
		override := api.SetNull()
		if !strings.EqualFold(model, ModelDefault) {
			if _, _, err := e.models.Resolve(model); err != nil {
				return api.StatusResult{}, domain.Invalid("model %q: %s", model, domain.ErrorMessage(err))
			}
			override = api.SetValue(model)
		}
		if _, err := e.patch(ctx, key, api.PatchRequest{Model: override}); err != nil {
			return api.StatusResult{}, err
		}
		changed = true
	}
	res, err := e.statusCard(ctx, req, key)
	res.ModelChanged = changed
	return res, err
}

// statusCard reads the card of key (a session that does not exist yet has
// the defaults it would get, but no sessionId: the one newSession drew is
// not the one the session gets when it is created).
func (e *Engine) statusCard(ctx context.Context, req Requester, key string) (api.StatusResult, error) {
	s, err := e.store.GetSession(ctx, key)
	if errors.Is(err, domain.ErrNotFound) {
		s, err = e.newSession(key)
		s.UpdatedAt = 0
		s.SessionID = ""
	}
	if err != nil {
		return api.StatusResult{}, err
	}
	res := api.StatusResult{
		Status: "ok", SessionKey: e.keys.Display(key, req.agent(e)), SessionID: s.SessionID, AgentID: s.AgentID,
		Model: e.modelFor(s), ModelOverride: s.ModelOverride, ModelProvider: s.ModelProvider, ThinkingLevel: s.ThinkingLevel,
		Tokens:           api.StatusTokens{Input: s.InputTokens, Output: s.OutputTokens, Total: s.TotalTokens, Context: s.ContextTokens},
		EstimatedCostUSD: s.EstimatedCostUSD, SendPolicyOverride: s.SendPolicy, LastActivity: s.UpdatedAt,
		ForkedFromParent: s.ForkedFromParent,
	}
	if e.isRemote(s.AgentID) {
		res.Model = "a2a/" + s.AgentID // the remote agent answers (remote.go)
	}
	// The provider is that of the model the card names (the session's
	// next run), not of its last run: after a switch the two would
	// otherwise disagree ("openai/…" beside "script").
	res.ModelProvider, _, _ = strings.Cut(res.Model, "/")
	facts := policy.SessionFacts{Key: s.Key, Channel: e.channelOf(s), ChatType: s.ChatType, LastChannel: s.LastChannel, Override: s.SendPolicy}
	res.SendPolicy = domain.SendPolicyAllow
	if d := policy.SendPolicy(e.conf().Session.SendPolicy, facts); !d.Allow {
		res.SendPolicy = domain.SendPolicyDeny
	}
	live, err := e.store.ListRuns(ctx, domain.RunQuery{SessionKey: key, Statuses: []domain.RunStatus{domain.RunQueued, domain.RunRunning}})
	if err != nil {
		return api.StatusResult{}, err
	}
	now := e.nowMs()
	for _, r := range live {
		if r.Status == domain.RunQueued {
			res.QueuedRuns++
			continue
		}
		// The oldest running run is the lane's (a joined steer runs too).
		if res.ActiveRun == nil || r.StartedAt < res.ActiveRun.StartedAt {
			res.ActiveRun = &api.StatusActiveRun{RunID: r.ID, Kind: string(r.Kind), StartedAt: r.StartedAt, AgeMs: max(0, now-r.StartedAt)}
		}
	}
	us, err := e.UsageStatus(ctx, key)
	if err != nil {
		return api.StatusResult{}, err
	}
	res.Usage, res.Budget, res.BudgetDeadline, res.Progress = &us.Usage, us.Budget, us.BudgetDeadline, us.Progress
	for _, c := range us.Children {
		if c.Status == domain.RunQueued || c.Status == domain.RunRunning {
			res.ChildrenRunning++
			res.RunningChildren = append(res.RunningChildren, c)
		}
	}
	return res, nil
}
