package engine

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/policy"
	"github.com/switchboard-go/switchboard/internal/sessionkey"
)

// patch changes a session's settings, creating the session when missing.
func (e *Engine) patch(ctx context.Context, ref string, p api.PatchRequest) (domain.Session, error) {
	key, err := e.resolveRef(ctx, Requester{Operator: true}, ref)
	if err != nil {
		return domain.Session{}, err
	}
	set, err := e.patchSettings(p)
	if err != nil {
		return domain.Session{}, err
	}
	if set.label != nil && *set.label != "" {
		// The uniqueness check below reads committed rows: the gate keeps
		// another setter of this label from committing in between.
		unlock, err := e.lockLabel(ctx, e.keys.AgentOf(key), *set.label)
		if err != nil {
			return domain.Session{}, err
		}
		defer unlock()
	}
	var out domain.Session
	err = e.store.Update(ctx, func(tx domain.Tx) error {
		s, _, err := e.ensureSession(tx, key, nil)
		if err != nil {
			return err
		}
		if set.label != nil {
			l := *set.label
			if l != "" && l != s.Label {
				// Labels are unique per agent.
				if other, err := e.store.ListSessions(ctx, domain.SessionQuery{Label: l, AgentIDs: []string{s.AgentID}, Limit: 1}); err == nil && len(other) > 0 && other[0].Key != key {
					return domain.Invalid("label already in use: %s", l)
				}
			}
			s.Label = l
		}
		if set.sendPolicy != nil {
			s.SendPolicy = *set.sendPolicy
		}
		if set.model != nil {
			s.ModelOverride = *set.model
		}
		if set.thinking != nil {
			s.ThinkingLevel = *set.thinking
		}
		// A thinking level must suit the session's model whichever of the
		// two this patch sets: a model switched to one that cannot think
		// at the stored level is refused as the level would be. Clearing
		// the model override is not checked: it goes back to the agent's
		// model, which the config chose.
		if s.ThinkingLevel != "" && (set.thinking != nil || (set.model != nil && *set.model != "")) {
			if err := e.models.ValidateThinking(e.modelFor(s), s.ThinkingLevel); err != nil {
				return err
			}
		}
		if set.verbose != nil {
			s.VerboseLevel = *set.verbose
		}
		s.UpdatedAt = e.nowMs()
		out = s
		return tx.PutSession(s)
	})
	if err != nil {
		return domain.Session{}, err
	}
	e.bus.publish(domain.Event{Kind: domain.EventSession, SessionKey: key, Session: &out, Reason: "patched", TS: e.nowMs()})
	return out, nil
}

// reset starts a new transcript generation (new sessionId) for a session:
// active runs are cancelled, the old transcript is kept, spawn lineage too.
func (e *Engine) reset(ctx context.Context, ref string) (domain.Session, error) {
	key, err := e.resolveRef(ctx, Requester{Operator: true}, ref)
	if err != nil {
		return domain.Session{}, err
	}
	if _, err := e.StopSession(ctx, key); err != nil {
		return domain.Session{}, err
	}
	// The old transcript file is archived before the new generation is
	// committed: a crash in between leaves the old generation current and
	// its file rebuilt from the store at start, never a file of a
	// generation no session has.
	if cur, err := e.store.GetSession(ctx, key); err == nil && e.mirror != nil {
		if err := e.mirror.Archive(cur.AgentID, cur.SessionID, e.now()); err != nil {
			e.log.Warn("archive transcript mirror", "session", key, "err", err)
		}
	}
	var out domain.Session
	var old domain.Session
	err = e.store.Update(ctx, func(tx domain.Tx) error {
		s, created, err := e.ensureSession(tx, key, nil)
		if err != nil {
			return err
		}
		old = s
		if !created {
			s.SessionID = e.newID()
			s.InputTokens, s.OutputTokens, s.TotalTokens, s.ContextTokens = 0, 0, 0, 0
			s.SystemSent, s.AbortedLastRun = false, false
		}
		s.UpdatedAt = e.nowMs()
		out = s
		return tx.PutSession(s)
	})
	if err != nil {
		return domain.Session{}, err
	}
	if e.mirror != nil && old.SessionID != out.SessionID {
		if err := e.mirror.Archive(old.AgentID, old.SessionID, e.now()); err != nil {
			e.log.Warn("archive transcript mirror", "session", key, "err", err)
		}
	}
	e.log.Info("session reset", "session", key, "sessionId", out.SessionID)
	e.bus.publish(domain.Event{Kind: domain.EventSession, SessionKey: key, Session: &out, Reason: "reset", TS: e.nowMs()})
	return out, nil
}

// removeSession removes a session and its transcript. The main session of an
// agent cannot be deleted.
func (e *Engine) removeSession(ctx context.Context, ref string) error {
	key, err := e.resolveRef(ctx, Requester{Operator: true}, ref)
	if err != nil {
		return err
	}
	if e.keys.Kind(key) == domain.KindMain {
		return domain.Invalid("Cannot delete the main session (%s).", key)
	}
	if _, err := e.store.GetSession(ctx, key); err != nil {
		if errors.Is(err, domain.ErrNotFound) {
			return domain.Errorf(domain.CodeNotFound, "No session found: %s", ref)
		}
		return err
	}
	if _, err := e.StopSession(ctx, key); err != nil {
		return err
	}
	return e.deleteSession(ctx, key)
}

func (e *Engine) deleteSession(ctx context.Context, key string) error {
	// The transcript file goes first: a crash before the row's deletion
	// commits leaves the session, its file rebuilt from the store at start
	// (and the deletion, when it was a cleanup, retried), never a file of
	// a session that no longer exists.
	if cur, err := e.store.GetSession(ctx, key); err == nil && e.mirror != nil {
		if err := e.mirror.Remove(cur.AgentID, cur.SessionID); err != nil {
			e.log.Warn("remove transcript mirror", "session", key, "err", err)
		}
	}
	var s domain.Session
	err := e.store.Update(ctx, func(tx domain.Tx) error {
		var err error
		s, err = tx.GetSession(key)
		if err != nil {
			return err
		}
		return tx.DeleteSession(key)
	})
	if err != nil {
		return err
	}
	if e.mirror != nil {
		if err := e.mirror.Remove(s.AgentID, s.SessionID); err != nil {
			e.log.Warn("remove transcript mirror", "session", key, "err", err)
		}
	}
	e.log.Info("session deleted", "session", key)
	e.publishSession(key, "deleted")
	return nil
}

// newSession builds the row of a session that does not exist yet.
func (e *Engine) newSession(key string) (domain.Session, error) {
	k, err := sessionkey.Parse(key)
	if err != nil {
		return domain.Session{}, domain.Invalid("invalid session key %q: %v", key, err)
	}
	_, local := e.cfg.Agent(k.AgentID)
	remote := e.isRemote(k.AgentID)
	if !local && !remote {
		return domain.Session{}, e.unknownAgent(k.AgentID, key)
	}
	now := e.nowMs()
	s := domain.Session{
		Key:       key,
		AgentID:   k.AgentID,
		SessionID: e.newID(),
		Kind:      e.keys.Kind(key),
		ChatType:  sessionkey.ChatTypeFromKey(key),
		Channel:   sessionkey.ChannelFromKey(key),
		Sandboxed: e.conf().AgentSandboxed(k.AgentID),
		CreatedAt: now,
		UpdatedAt: now,
	}
	if remote {
		s.Channel = RemoteChannel
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

// relTranscriptPath is the session's transcript mirror path below the
// mirror's root (agents/<agentId>/sessions/<sessionId>.jsonl): what text a
// session can read (an announce) may name, without the server's directories.
func (e *Engine) relTranscriptPath(s domain.Session) string {
	path := e.TranscriptPath(s)
	if path == "" {
		return ""
	}
	root := filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(path))))
	rel, err := filepath.Rel(root, path)
	if err != nil || strings.HasPrefix(rel, "..") {
		return ""
	}
	return filepath.ToSlash(rel)
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

// agentConfigured reports whether id is a configured agent.
func (e *Engine) agentConfigured(id string) bool {
	_, ok := e.cfg.Agent(id)
	return ok
}

// sessionFacts are the send-policy inputs of key (a new key's are derived
// from the key alone).
func (e *Engine) sessionFacts(ctx context.Context, key string) (policy.SessionFacts, error) {
	f, _, err := e.sessionFactsRow(ctx, key)
	return f, err
}

// sessionFactsRow is sessionFacts and the stored session row it read (nil
// when there is none).
func (e *Engine) sessionFactsRow(ctx context.Context, key string) (policy.SessionFacts, *domain.Session, error) {
	s, err := e.store.GetSession(ctx, key)
	var row *domain.Session
	if err == nil {
		row = &s
	} else if s, err = e.newSession(key); err != nil {
		return policy.SessionFacts{}, nil, err
	}
	return policy.SessionFacts{Key: s.Key, Channel: e.channelOf(s), ChatType: s.ChatType, LastChannel: s.LastChannel, Override: s.SendPolicy}, row, nil
}

// lockLabel makes "label already in use" hold under concurrent setters.
// The uniqueness check reads committed rows (the store's Tx cannot list
// sessions by label), and the SQLite writer batches several Updates into
// one transaction, so two patches giving one label to two sessions each
// saw it free and both committed. Holding the store's gate of (agent,
// label) across the check and the commit orders them: the second sees the
// first's row. Different labels do not wait for each other. The gate is
// the store's (domain.Store.Gate), so on PostgreSQL it orders the setters
// of every replica, not only this process's.
func (e *Engine) lockLabel(ctx context.Context, agent, label string) (unlock func(), err error) {
	return e.store.Gate(ctx, "label\x00"+agent+"\x00"+label)
}

// patchSet is what a sessions.patch stores: nil leaves a setting as it is,
// "" clears it (the request's null).
type patchSet struct {
	label, sendPolicy, model, thinking, verbose *string
}

// patchSettings checks a patch's values with api.PatchRequest.Normalize
// (the one normalisation every surface's patch goes through: null clears,
// a value — "" and blanks included — must be valid for its field), then
// what only the engine knows: that a model exists in the registry.
func (e *Engine) patchSettings(p api.PatchRequest) (patchSet, error) {
	p, err := p.Normalize()
	if err != nil {
		return patchSet{}, err
	}
	if v, ok := p.Model.Value(); ok {
		if _, _, err := e.models.Resolve(v); err != nil {
			return patchSet{}, err
		}
	}
	return patchSet{
		label:      stored(p.Label),
		sendPolicy: stored(p.SendPolicy),
		model:      stored(p.Model),
		thinking:   stored(p.ThinkingLevel),
		verbose:    stored(p.VerboseLevel),
	}, nil
}

// stored is the setting to store for a normalized n: nil when absent, ""
// when null, else its value.
func stored(n api.Nullable) *string {
	if !n.Given() {
		return nil
	}
	v, _ := n.Value() // "" for null
	return &v
}
