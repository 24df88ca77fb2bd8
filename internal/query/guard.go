// Package query holds the read models behind api.Service: who may see
// which session (Guard, the visibility of tools.sessions.visibility, the
// sandbox and agent-to-agent), and the reads built on it (search). The
// engine gates each call (scopes, limits) and resolves the requester;
// this package reads the store within what the requester may see.
package query

import (
	"context"
	"errors"
	"time"

	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/policy"
	"github.com/switchboard-go/switchboard/internal/sessionkey"
)

// Reader reads the store for the read models. Config returns the
// configuration in effect (it may be reloaded).
type Reader struct {
	Store  domain.Store
	Keys   sessionkey.Resolver
	Config func() *config.Config
	Now    func() time.Time
}

// Viewer is who reads: its canonical session key and agent, or the
// operator (who sees all).
type Viewer struct {
	Key, Agent string
	Operator   bool
}

// Guard decides what a viewer may see and touch. Operators see all.
type Guard struct {
	r        Reader
	operator bool
	vis      policy.Visibility
	key      string
}

// GuardFor returns v's guard under the configuration in effect: the
// sandbox of v's agent (or of its session's row) clamps its visibility.
func (r Reader) GuardFor(ctx context.Context, v Viewer) Guard {
	row := false
	if s, err := r.Store.GetSession(ctx, v.Key); err == nil {
		row = s.Sandboxed
	}
	sandboxed := policy.Sandboxed(r.Config(), v.Agent, row)
	return Guard{r: r, operator: v.Operator, vis: policy.NewVisibility(r.Config(), v.Key, v.Agent, sandboxed), key: v.Key}
}

// Visibility is the guard's visibility policy (the zero Visibility, which
// refuses all, for the operator, who is never checked against it).
func (g Guard) Visibility() policy.Visibility { return g.vis }

// Key is the viewer's session key.
func (g Guard) Key() string { return g.key }

// Check returns a forbidden error when the viewer may not act on key.
func (g Guard) Check(ctx context.Context, key string, action policy.Action) error {
	if g.operator {
		return nil
	}
	inTree, err := g.InTree(ctx, key)
	if err != nil {
		return err
	}
	return g.vis.Check(policy.TargetFacts{Key: key, AgentID: g.r.Keys.AgentOf(key), InTree: inTree}, action)
}

// InTree reports whether key is the viewer or was spawned from it,
// transitively, by walking spawnedBy links up from key.
func (g Guard) InTree(ctx context.Context, key string) (bool, error) {
	cur := key
	for depth := 0; depth < 64; depth++ {
		if cur == g.key {
			return true, nil
		}
		s, err := g.r.Store.GetSession(ctx, cur)
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

// Scope returns the store query that selects the visible rows (and
// whether rows still need a per-row check).
// Self-only visibility is handled by the caller (one GetSession).
func (g Guard) Scope(q domain.SessionQuery) (domain.SessionQuery, bool) {
	if g.operator {
		return q, false
	}
	sc := g.vis.ListScope()
	q.TreeRoot = sc.TreeRoot
	q.AgentIDs = sc.AgentIDs
	return q, sc.Filter
}

// SelfOnly reports whether only the viewer's own session is visible.
func (g Guard) SelfOnly() bool {
	return !g.operator && g.vis.ListScope().SelfOnly
}

// AllowRow reports whether a listed row is visible (for filtered scopes).
func (g Guard) AllowRow(ctx context.Context, s domain.Session) bool {
	if g.operator {
		return true
	}
	if g.vis.Mode() == policy.VisibilitySelf {
		return s.Key == g.key
	}
	return g.Check(ctx, s.Key, policy.ActionList) == nil
}
