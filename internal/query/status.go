package query

import (
	"context"
	"errors"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/policy"
)

// StatusView is what a status card takes from the engine: the key as the
// viewer names it, the defaults of a session not created yet, the model
// and channel a session's next run uses, and its usage and live progress.
type StatusView struct {
	Key        string
	NewSession func(key string) (domain.Session, error)
	Model      func(domain.Session) string
	Channel    func(domain.Session) string
	Usage      func(ctx context.Context, key string) (api.UsageStatus, error)
}

// StatusCard is session_status's card of key (a session that does not
// exist yet has the defaults it would get, but no sessionId: the one
// NewSession drew is not the one the session gets when it is created).
func (r Reader) StatusCard(ctx context.Context, key string, v StatusView) (api.StatusResult, error) {
	s, err := r.Store.GetSession(ctx, key)
	if errors.Is(err, domain.ErrNotFound) {
		s, err = v.NewSession(key)
		s.UpdatedAt = 0
		s.SessionID = ""
	}
	if err != nil {
		return api.StatusResult{}, err
	}
	res := api.StatusResult{
		Status: "ok", SessionKey: v.Key, SessionID: s.SessionID, AgentID: s.AgentID,
		Model: v.Model(s), ModelOverride: s.ModelOverride, ModelProvider: s.ModelProvider, ThinkingLevel: s.ThinkingLevel,
		Tokens:           api.StatusTokens{Input: s.InputTokens, Output: s.OutputTokens, Total: s.TotalTokens, Context: s.ContextTokens},
		EstimatedCostUSD: s.EstimatedCostUSD, SendPolicyOverride: s.SendPolicy, LastActivity: s.UpdatedAt,
		ForkedFromParent: s.ForkedFromParent,
	}
	// The provider is that of the model the card names (the session's
	// next run), not of its last run: after a switch the two would
	// otherwise disagree ("openai/…" beside "script").
	res.ModelProvider, _, _ = strings.Cut(res.Model, "/")
	facts := policy.SessionFacts{Key: s.Key, Channel: v.Channel(s), ChatType: s.ChatType, LastChannel: s.LastChannel, Override: s.SendPolicy}
	res.SendPolicy = domain.SendPolicyAllow
	if d := policy.SendPolicy(r.Config().Session.SendPolicy, facts); !d.Allow {
		res.SendPolicy = domain.SendPolicyDeny
	}
	live, err := r.Store.ListRuns(ctx, domain.RunQuery{SessionKey: key, Statuses: []domain.RunStatus{domain.RunQueued, domain.RunRunning}})
	if err != nil {
		return api.StatusResult{}, err
	}
	now := r.Now().UnixMilli()
	for _, run := range live {
		if run.Status == domain.RunQueued {
			res.QueuedRuns++
			continue
		}
		// The oldest running run is the lane's (a joined steer runs too).
		if res.ActiveRun == nil || run.StartedAt < res.ActiveRun.StartedAt {
			res.ActiveRun = &api.StatusActiveRun{RunID: run.ID, Kind: string(run.Kind), StartedAt: run.StartedAt, AgeMs: max(0, now-run.StartedAt)}
		}
	}
	us, err := v.Usage(ctx, key)
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
