package sessions

import (
	"context"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/policy"
	"github.com/switchboard-go/switchboard/internal/query"
	"github.com/switchboard-go/switchboard/internal/sessionkey"
)

// DisplayKey shows key as requester sees it (`main` for its main session).
func (b *Book) DisplayKey(key string) string {
	return b.keys.Display(key, b.base.DefaultAgentID())
}

// CanonicalKey resolves user input (`main`, a key, a sessionId) to a key.
func (b *Book) CanonicalKey(ctx context.Context, ref string) (string, error) {
	return b.Resolve(ctx, b.operator(), ref)
}

// canonical turns user input into a canonical key for requester agent.
func (b *Book) canonical(input, requesterAgent string) (string, error) {
	key, err := b.keys.Canonical(input, requesterAgent)
	if err != nil {
		return "", domain.Invalid("%v", err)
	}
	return key, nil
}

// Resolve resolves a session reference — a key, `main`, `current` or a
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
func (b *Book) Resolve(ctx context.Context, v query.Viewer, input string) (string, error) {
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
		return v.Key, nil
	}
	if sessionkey.LooksLikeSessionID(in) {
		key, found, err := b.byID(ctx, v, in)
		if err != nil || found {
			return key, err
		}
		if sessionkey.IsUUIDShaped(in) {
			// A sandboxed requester clamped to its tree gets the reference's
			// sandbox answer (forbidden) for every sessionId outside it, hidden
			// or missing alike, so the answer still reveals nothing.
			if !v.Operator && b.reads.GuardFor(ctx, v).Visibility().Restricted() {
				return "", domain.Errorf(domain.CodeForbidden, "Session not visible from this sandboxed agent session: %s", in)
			}
			return "", domain.Errorf(domain.CodeNotFound, "Session not found: %s (use the full sessionKey from sessions_list)", in)
		}
	}
	key, err := b.canonical(in, v.Agent)
	if err != nil {
		return "", err
	}
	if err := b.knownAgent(ctx, key); err != nil {
		return "", err
	}
	return key, nil
}

// FindByID returns the sessions whose current sessionId is id in
// any letter case: sessionIds are UUID-like hex that switchboard writes in
// lower case, so an id typed or copied in upper case finds its session.
// An exact match (an imported id kept as it was) is tried first.
func (b *Book) FindByID(ctx context.Context, id string) ([]domain.Session, error) {
	id = strings.TrimSpace(id)
	rows, err := b.store.FindSessionsByID(ctx, id)
	if err != nil || len(rows) > 0 {
		return rows, err
	}
	if lower := strings.ToLower(id); lower != id {
		return b.store.FindSessionsByID(ctx, lower)
	}
	return nil, nil
}

// byID finds the session whose current sessionId is id; found is
// false when none is, and two are an error. Only sessions the requester
// may see count, so a hidden session's id answers exactly as an unknown
// one (and an ambiguity never names a hidden key).
func (b *Book) byID(ctx context.Context, v query.Viewer, id string) (string, bool, error) {
	all, err := b.FindByID(ctx, id)
	if err != nil {
		return "", false, err
	}
	rows := all[:0]
	if len(all) > 0 && !v.Operator {
		g := b.reads.GuardFor(ctx, v)
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
func (b *Book) knownAgent(ctx context.Context, key string) error {
	id := b.keys.AgentOf(key)
	if b.AgentConfigured(id) || b.IsRemote(id) {
		return nil
	}
	if _, err := b.store.GetSession(ctx, key); err == nil {
		return nil
	}
	return b.UnknownAgent(id, key)
}

// UnknownAgent is the one error for a key naming an agent that is not
// configured.
func (b *Book) UnknownAgent(id, key string) error {
	return domain.Invalid("unknown agent id %q in session key %q (configured: %s)", id, key, strings.Join(b.base.AgentIDs(), ", "))
}
