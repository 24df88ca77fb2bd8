package engine

import (
	"context"

	"github.com/switchboard-go/switchboard/internal/api"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/policy"
)

// agentsList lists the agents req may spawn under.
func (e *Engine) agentsList(req Requester) policy.AgentsListResult {
	return policy.AgentsList(e.cfg, req.agent(e))
}

// Children lists the sub-agent runs a session spawned, newest first.
func (e *Engine) Children(ctx context.Context, requesterKey string) ([]api.ChildRow, error) {
	rows, err := e.store.ListSessions(ctx, domain.SessionQuery{SpawnedBy: requesterKey, IncludeArchived: true, Limit: 500})
	if err != nil {
		return nil, err
	}
	out := []api.ChildRow{}
	for _, s := range rows {
		runs, err := e.store.ListRuns(ctx, domain.RunQuery{SessionKey: s.Key, Kinds: []domain.RunKind{domain.RunKindSubagent}, Limit: 1})
		if err != nil {
			return nil, err
		}
		if len(runs) == 0 {
			continue
		}
		r := runs[0]
		c := api.ChildRow{RunID: r.ID, ChildSessionKey: s.Key, Label: s.Label, Status: r.Status, StartedAt: r.StartedAt,
			EndedAt: r.EndedAt, TotalTokens: s.TotalTokens, Error: r.Error}
		if r.EndedAt > 0 && r.StartedAt > 0 {
			c.RuntimeMs = r.EndedAt - r.StartedAt
		}
		if p, ok := e.rt.SessionProgress(s.Key); ok {
			c.Progress = &p
		}
		out = append(out, c)
	}
	if len(rows) > 0 {
		keys := make([]string, len(out))
		for i, c := range out {
			keys[i] = c.ChildSessionKey
		}
		accts, err := e.store.GetAccounts(ctx, keys)
		if err != nil {
			return nil, err
		}
		for i := range out {
			a := accts[out[i].ChildSessionKey]
			u := a.Usage
			out[i].Usage = &u
			if !a.Budget.IsZero() {
				b := a.Budget
				out[i].Budget = &b
			}
		}
	}
	return out, nil
}
