package engine

import (
	"context"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/budget"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/policy"
	"github.com/switchboard-go/switchboard/internal/query"
	"github.com/switchboard-go/switchboard/internal/runspec"
	"github.com/switchboard-go/switchboard/internal/sessions"
)

// ModelDefault is session_status's model value that clears the override.
const ModelDefault = "default"

// SessionStatus is session_status as the principal: the status card of the
// requester's session or of one it may see (the visibility of
// sessions_history), and with Model a switch of that session's model
// override, gated like sessions.patch (its scope, the same visibility).
func (e *Engine) SessionStatus(ctx context.Context, p api.Principal, r api.StatusRequest) (_ api.StatusResult, err error) {
	op := api.OpSessionStatus
	defer func() { e.audited(ctx, p, op, r.SessionKey, &err) }()
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
	if model != "" && e.sessions.IsRemote(e.keys.AgentOf(key)) {
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
		if _, err := e.sessions.Patch(ctx, key, api.PatchRequest{Model: override}); err != nil {
			return api.StatusResult{}, err
		}
		changed = true
	}
	res, err := e.statusCard(ctx, req, key)
	res.ModelChanged = changed
	return res, err
}

// statusCard reads the card of key as req sees it (package query).
func (e *Engine) statusCard(ctx context.Context, req Requester, key string) (api.StatusResult, error) {
	v := query.StatusView{
		Key:        e.keys.Display(key, req.agent(e)),
		NewSession: e.sessions.New,
		Model: func(s domain.Session) string {
			if e.sessions.IsRemote(s.AgentID) {
				return "a2a/" + s.AgentID // the remote agent answers (remote.go)
			}
			return e.sessions.ModelFor(s)
		},
		Channel: sessions.ChannelOf,
		Usage:   e.UsageStatus,
	}
	return e.reads.StatusCard(ctx, key, v)
}

// UsageReport sums the usage ledger (operator only).
func (e *Engine) UsageReport(ctx context.Context, p api.Principal, r api.UsageRequest) (_ api.UsageResult, err error) {
	defer e.audited(ctx, p, api.OpUsageReport, "", &err)
	if _, err := e.enter(p, api.OpUsageReport); err != nil {
		return api.UsageResult{}, err
	}
	return budget.Report(ctx, e.store, r)
}

// UsageStatus is a session's usage, budget, running progress and
// children, for session_status (key must be visible to the caller: the
// tool checks it before calling).
func (e *Engine) UsageStatus(ctx context.Context, key string) (api.UsageStatus, error) {
	st, err := e.budgets.Status(ctx, key)
	if err != nil {
		return api.UsageStatus{}, err
	}
	if st.Children, err = e.Children(ctx, key); err != nil {
		return api.UsageStatus{}, err
	}
	return st, nil
}

// payerFor is the session whose spawn-chain budgets pay for the runs a
// call made inside a run causes (a send's target run and the exchange's
// reply-back turns and announce step): the requester when it is a spawned
// session (its chain may be budgeted), else the payer of the calling run
// itself. Calls from outside a run cause nothing a budget bounds.
func (e *Engine) payerFor(ctx context.Context, requesterKey, runID string) string {
	if runID == "" {
		return ""
	}
	if s, err := e.store.GetSession(ctx, requesterKey); err == nil && s.SpawnedBy != "" {
		return requesterKey
	}
	if r, err := e.store.GetRun(ctx, runID); err == nil {
		if spec, err := runspec.Decode(r); err == nil {
			return spec.Payer
		}
	}
	return ""
}
