package engine

import (
	"context"
	"errors"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/policy"
)

// guard decides what a requester may see and touch. Operators see all.
type guard struct {
	e        *Engine
	operator bool
	vis      policy.Visibility
	key      string
}

func (e *Engine) guardFor(ctx context.Context, req Requester) guard {
	key := req.key(e)
	agent := req.agent(e)
	row := false
	if s, err := e.store.GetSession(ctx, key); err == nil {
		row = s.Sandboxed
	}
	sandboxed := policy.Sandboxed(e.conf(), agent, row)
	return guard{e: e, operator: req.Operator, vis: policy.NewVisibility(e.conf(), key, agent, sandboxed), key: key}
}

// check returns a forbidden error when the requester may not act on key.
func (g guard) check(ctx context.Context, key string, action policy.Action) error {
	if g.operator {
		return nil
	}
	inTree, err := g.inTree(ctx, key)
	if err != nil {
		return err
	}
	return g.vis.Check(policy.TargetFacts{Key: key, AgentID: g.e.keys.AgentOf(key), InTree: inTree}, action)
}

// inTree reports whether key is the requester or was spawned from it,
// transitively, by walking spawnedBy links up from key.
func (g guard) inTree(ctx context.Context, key string) (bool, error) {
	cur := key
	for depth := 0; depth < 64; depth++ {
		if cur == g.key {
			return true, nil
		}
		s, err := g.e.store.GetSession(ctx, cur)
		if errors.Is(err, domain.ErrNotFound) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if s.SpawnedBy == "" {
			return false, nil
		}
		cur = s.SpawnedBy
	}
	return false, nil
}

// scope returns the store query that selects the visible rows (and
// whether rows still need a per-row check).
// Self-only visibility is handled by the caller (one GetSession).
func (g guard) scope(q domain.SessionQuery) (domain.SessionQuery, bool) {
	if g.operator {
		return q, false
	}
	sc := g.vis.ListScope()
	q.TreeRoot = sc.TreeRoot
	q.AgentIDs = sc.AgentIDs
	return q, sc.Filter
}

// selfOnly reports whether only the requester's own session is visible.
func (g guard) selfOnly() bool {
	return !g.operator && g.vis.ListScope().SelfOnly
}

// allowRow reports whether a listed row is visible (for filtered scopes).
func (g guard) allowRow(ctx context.Context, s domain.Session) bool {
	if g.operator {
		return true
	}
	if g.vis.Mode() == policy.VisibilitySelf {
		return s.Key == g.key
	}
	return g.check(ctx, s.Key, policy.ActionList) == nil
}

// sandboxed reports whether session s runs sandboxed now: the current
// configuration wins when it is stricter than the row's creation-time flag.
func (e *Engine) sandboxed(s domain.Session) bool {
	return policy.Sandboxed(e.conf(), s.AgentID, s.Sandboxed)
}
