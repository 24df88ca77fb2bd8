package engine

import (
	"context"
	"errors"
	"strings"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/sessionkey"
)

// newSession builds the row of a session that does not exist yet.
func (e *Engine) newSession(key string) (domain.Session, error) {
	k, err := sessionkey.Parse(key)
	if err != nil {
		return domain.Session{}, domain.Invalid("invalid session key %q: %v", key, err)
	}
	if _, ok := e.cfg.Agent(k.AgentID); !ok {
		return domain.Session{}, domain.Invalid("unknown agent id %q in session key %q (configured: %s)", k.AgentID, key, strings.Join(e.cfg.AgentIDs(), ", "))
	}
	now := e.nowMs()
	s := domain.Session{
		Key:       key,
		AgentID:   k.AgentID,
		SessionID: e.newID(),
		Kind:      e.keys.Kind(key),
		ChatType:  sessionkey.ChatTypeFromKey(key),
		Channel:   sessionkey.ChannelFromKey(key),
		Sandboxed: e.cfg.AgentSandboxed(k.AgentID),
		CreatedAt: now,
		UpdatedAt: now,
	}
	return s, nil
}

// ensureSession returns the session row of key, creating it when missing.
func (e *Engine) ensureSession(tx domain.Tx, key string, init func(*domain.Session)) (domain.Session, bool, error) {
	s, err := tx.GetSession(key)
	if err == nil {
		return s, false, nil
	}
	if !errors.Is(err, domain.ErrNotFound) {
		return s, false, err
	}
	s, err = e.newSession(key)
	if err != nil {
		return s, false, err
	}
	if init != nil {
		init(&s)
	}
	if err := tx.PutSession(s); err != nil {
		return s, false, err
	}
	return s, true, nil
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
// sessionId — to a canonical key, as the session tools accept them.
func (e *Engine) resolveRef(ctx context.Context, req Requester, input string) (string, error) {
	in := strings.TrimSpace(input)
	if in == "" {
		return "", domain.Invalid("sessionKey required")
	}
	if len(in) > maxKeyLen {
		return "", domain.Invalid("sessionKey is too long (%d characters; max %d)", len(in), maxKeyLen)
	}
	if strings.EqualFold(in, "current") {
		return req.key(e), nil
	}
	if sessionkey.LooksLikeSessionID(in) {
		rows, err := e.store.FindSessionsByID(ctx, in)
		if err != nil {
			return "", err
		}
		switch {
		case len(rows) == 1:
			return rows[0].Key, nil
		case len(rows) > 1:
			keys := make([]string, len(rows))
			for i, r := range rows {
				keys[i] = r.Key
			}
			return "", domain.Invalid("Multiple sessions found for sessionId: %s (%s)", in, strings.Join(keys, ", "))
		}
		// Not a sessionId: a UUID must have been one; any other bare word
		// is a key of the requester's agent (agent:<id>:<word>).
		key, kerr := e.keys.Canonical(in, req.agent(e))
		if sessionkey.IsUUID(in) || kerr != nil {
			if kerr == nil {
				if _, err := e.store.GetSession(ctx, key); err == nil {
					return key, nil
				}
			}
			return "", domain.Errorf(domain.CodeNotFound, "Session not found: %s (use the full sessionKey from sessions_list)", in)
		}
		return key, nil
	}
	return e.canonical(in, req.agent(e))
}

// Session returns a session row by reference (key, main or sessionId).
func (e *Engine) Session(ctx context.Context, ref string) (domain.Session, error) {
	key, err := e.resolveRef(ctx, Requester{Operator: true}, ref)
	if err != nil {
		return domain.Session{}, err
	}
	s, err := e.store.GetSession(ctx, key)
	if errors.Is(err, domain.ErrNotFound) {
		return s, domain.Errorf(domain.CodeNotFound, "No session found: %s", ref)
	}
	return s, err
}

// TranscriptPath is the JSONL mirror path of a session ("" without a mirror).
func (e *Engine) TranscriptPath(s domain.Session) string {
	if e.mirror == nil || s.SessionID == "" {
		return ""
	}
	return e.mirror.Path(s.AgentID, s.SessionID)
}

// channelOf is a session's channel as the session tools report it.
func (e *Engine) channelOf(s domain.Session) string {
	var origin, delivery string
	if s.Origin != nil {
		origin = s.Origin.Provider
	}
	if s.Delivery != nil {
		delivery = s.Delivery.Channel
	}
	return sessionkey.DeriveChannel(s.Kind, s.Channel, origin, delivery, s.LastChannel, s.Key)
}

func (e *Engine) checkAgent(id string) error {
	if _, ok := e.cfg.Agent(id); !ok {
		return domain.Invalid("unknown agent id %q (configured: %s)", id, strings.Join(e.cfg.AgentIDs(), ", "))
	}
	return nil
}

const maxKeyLen = 512
