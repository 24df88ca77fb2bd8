package engine

import (
	"context"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/policy"
	"github.com/switchboard-go/switchboard/internal/sessionkey"
)

// DisplayKey shows key as requester sees it (`main` for its main session).
func (e *Engine) DisplayKey(key string) string {
	return e.keys.Display(key, e.cfg.DefaultAgentID())
}

// CanonicalKey resolves user input (`main`, a key, a sessionId) to a key.
func (e *Engine) CanonicalKey(ctx context.Context, ref string) (string, error) {
	return e.resolveRef(ctx, Requester{Operator: true}, ref)
}

// canonical turns user input into a canonical key for requester agent.
func (e *Engine) canonical(input, requesterAgent string) (string, error) {
	key, err := e.keys.Canonical(input, requesterAgent)
	if err != nil {
		return "", domain.Invalid("%v", err)
	}
	return key, nil
}

// resolveRef resolves a session reference — a key, `main`, `current` or a
// sessionId — to a canonical key, by one rule for every surface
// (docs/design.md#session-keys-and-resolution):
//
//   - `current` is the requester;
//   - a reference shaped like a UUID or its start (hex with dashes) is a
//     sessionId and nothing else: unknown, it is an error;
//   - a sessionId of a session the requester may not see is unknown to it
//     (a key it may not see stays a forbidden target: the reference's
//     answer);
//   - any other bare word is first tried as a sessionId, then taken as a
//     key of the requester's agent;
//   - keys (`main`, `agent:…`, legacy keys) are canonicalized, and a key of
//     an agent that is not configured is refused (unless its session
//     exists), with the same error everywhere.
func (e *Engine) resolveRef(ctx context.Context, req Requester, input string) (string, error) {
	in := strings.TrimSpace(input)
	if in == "" {
		return "", domain.Invalid("sessionKey required")
	}
	// Characters, as the limit says (and as every other check of it
	// counts), not bytes.
	if err := api.KeyChars.CheckChars(in); err != nil {
		return "", err
	}
	if strings.EqualFold(in, "current") {
		return req.key(e), nil
	}
	if sessionkey.LooksLikeSessionID(in) {
		key, found, err := e.sessionByID(ctx, req, in)
		if err != nil || found {
			return key, err
		}
		if sessionkey.IsUUIDShaped(in) {
			// A sandboxed requester clamped to its tree gets the reference's
			// sandbox answer (forbidden) for every sessionId outside it, hidden
			// or missing alike, so the answer still reveals nothing.
			if !req.Operator && e.guardFor(ctx, req).Visibility().Restricted() {
				return "", domain.Errorf(domain.CodeForbidden, "Session not visible from this sandboxed agent session: %s", in)
			}
			return "", domain.Errorf(domain.CodeNotFound, "Session not found: %s (use the full sessionKey from sessions_list)", in)
		}
	}
	key, err := e.canonical(in, req.agent(e))
	if err != nil {
		return "", err
	}
	if err := e.knownAgent(ctx, key); err != nil {
		return "", err
	}
	return key, nil
}

// findSessionsByID returns the sessions whose current sessionId is id in
// any letter case: sessionIds are UUID-like hex that switchboard writes in
// lower case, so an id typed or copied in upper case finds its session.
// An exact match (an imported id kept as it was) is tried first.
func (e *Engine) findSessionsByID(ctx context.Context, id string) ([]domain.Session, error) {
	id = strings.TrimSpace(id)
	rows, err := e.store.FindSessionsByID(ctx, id)
	if err != nil || len(rows) > 0 {
		return rows, err
	}
	if lower := strings.ToLower(id); lower != id {
		return e.store.FindSessionsByID(ctx, lower)
	}
	return nil, nil
}

// sessionByID finds the session whose current sessionId is id; found is
// false when none is, and two are an error. Only sessions the requester
// may see count, so a hidden session's id answers exactly as an unknown
// one (and an ambiguity never names a hidden key).
func (e *Engine) sessionByID(ctx context.Context, req Requester, id string) (string, bool, error) {
	all, err := e.findSessionsByID(ctx, id)
	if err != nil {
		return "", false, err
	}
	rows := all[:0]
	if len(all) > 0 && !req.Operator {
		g := e.guardFor(ctx, req)
		for _, s := range all {
			if g.Check(ctx, s.Key, policy.ActionHistory) == nil {
				rows = append(rows, s)
			}
		}
	} else {
		rows = all
	}
	switch len(rows) {
	case 0:
		return "", false, nil
	case 1:
		return rows[0].Key, true, nil
	}
	keys := make([]string, len(rows))
	for i, r := range rows {
		keys[i] = r.Key
	}
	return "", false, domain.Invalid("Multiple sessions found for sessionId: %s (%s)", id, strings.Join(keys, ", "))
}

// knownAgent refuses a canonical key of an agent that is not configured,
// unless a session already has the key (a session of an agent since
// removed from config stays reachable).
func (e *Engine) knownAgent(ctx context.Context, key string) error {
	id := e.keys.AgentOf(key)
	if e.agentConfigured(id) || e.isRemote(id) {
		return nil
	}
	if _, err := e.store.GetSession(ctx, key); err == nil {
		return nil
	}
	return e.unknownAgent(id, key)
}

// unknownAgent is the one error for a key naming an agent that is not
// configured.
func (e *Engine) unknownAgent(id, key string) error {
	return domain.Invalid("unknown agent id %q in session key %q (configured: %s)", id, key, strings.Join(e.cfg.AgentIDs(), ", "))
}
