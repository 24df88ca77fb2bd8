package engine

import (
	"context"
	"errors"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/policy"
)

// chatTarget checks that a requester may chat into key. A chat naming the
// requester's own session as its parent (api.ChatRequest.Parent) and
// creating key is let in as a session of the requester's tree, which it
// becomes (chat's ensureSession); a key that exists is checked as it is.
func (e *Engine) chatTarget(ctx context.Context, req Requester, key, parent string) error {
	if parent == "" {
		return e.target(ctx, req, key, policy.ActionSend)
	}
	canon, err := e.requesterKey(parent)
	if err != nil {
		return err
	}
	if canon != req.SessionKey {
		return domain.Errorf(domain.CodeForbidden, "a chat may create sessions under the requester's own session %s only, not %s", req.SessionKey, canon)
	}
	if _, err := e.store.GetSession(ctx, key); !errors.Is(err, domain.ErrNotFound) {
		if err != nil {
			return err
		}
		return e.target(ctx, req, key, policy.ActionSend)
	}
	return e.guardFor(ctx, req).Visibility().Check(policy.TargetFacts{Key: key, AgentID: e.keys.AgentOf(key), InTree: true}, policy.ActionSend)
}

// childOf makes s, a session a chat creates, a child of parent: spawned by
// it one level deeper, sandboxed when it is.
func (e *Engine) childOf(ctx context.Context, parent string) (func(*domain.Session), error) {
	if parent == "" {
		return func(*domain.Session) {}, nil
	}
	p, err := e.store.GetSession(ctx, parent)
	if errors.Is(err, domain.ErrNotFound) {
		// A bound session that has not chatted yet has no row.
		p = domain.Session{Key: parent, AgentID: e.keys.AgentOf(parent)}
	} else if err != nil {
		return nil, err
	}
	sandboxed := e.sandboxed(p)
	return func(s *domain.Session) {
		s.SpawnedBy = p.Key
		s.SpawnDepth = p.SpawnDepth + 1
		s.Sandboxed = s.Sandboxed || sandboxed
	}, nil
}

// parentOf is the canonical parent of a chat ("" for none).
func (e *Engine) parentOf(r api.ChatRequest) string {
	if strings.TrimSpace(r.Parent) == "" {
		return ""
	}
	canon, err := e.requesterKey(r.Parent)
	if err != nil {
		return ""
	}
	return canon
}
