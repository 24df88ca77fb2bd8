package sessions

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

// Patch changes a session's settings, creating the session when missing.
func (b *Book) Patch(ctx context.Context, ref string, p api.PatchRequest) (domain.Session, error) {
	key, err := b.Resolve(ctx, b.operator(), ref)
	if err != nil {
		return domain.Session{}, err
	}
	set, err := b.patchSettings(p)
	if err != nil {
		return domain.Session{}, err
	}
	if set.label != nil && *set.label != "" {
		// The uniqueness check below reads committed rows: the gate keeps
		// another setter of this label from committing in between.
		unlock, err := b.lockLabel(ctx, b.keys.AgentOf(key), *set.label)
		if err != nil {
			return domain.Session{}, err
		}
		defer unlock()
	}
	var out domain.Session
	err = b.store.Update(ctx, func(tx domain.Tx) error {
		s, _, err := b.Ensure(tx, key, nil)
		if err != nil {
			return err
		}
		if set.label != nil {
			l := *set.label
			if l != "" && l != s.Label {
				// Labels are unique per agent.
				if other, err := b.store.ListSessions(ctx, domain.SessionQuery{Label: l, AgentIDs: []string{s.AgentID}, Limit: 1}); err == nil && len(other) > 0 && other[0].Key != key {
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
			if err := b.models.ValidateThinking(b.ModelFor(s), s.ThinkingLevel); err != nil {
				return err
			}
		}
		if set.verbose != nil {
			s.VerboseLevel = *set.verbose
		}
		s.UpdatedAt = b.nowMs()
		out = s
		return tx.PutSession(s)
	})
	if err != nil {
		return domain.Session{}, err
	}
	b.publish(domain.Event{Kind: domain.EventSession, SessionKey: key, Session: &out, Reason: "patched", TS: b.nowMs()})
	return out, nil
}

// Reset starts a new transcript generation (new sessionId) for a session:
// active runs are cancelled, the old transcript is kept, spawn lineage too.
func (b *Book) Reset(ctx context.Context, ref string) (domain.Session, error) {
	key, err := b.Resolve(ctx, b.operator(), ref)
	if err != nil {
		return domain.Session{}, err
	}
	if _, err := b.stop(ctx, key); err != nil {
		return domain.Session{}, err
	}
	// The old transcript file is archived before the new generation is
	// committed: a crash in between leaves the old generation current and
	// its file rebuilt from the store at start, never a file of a
	// generation no session has.
	if cur, err := b.store.GetSession(ctx, key); err == nil && b.mirror != nil {
		if err := b.mirror.Archive(cur.AgentID, cur.SessionID, b.now()); err != nil {
			b.log.Warn("archive transcript mirror", "session", key, "err", err)
		}
	}
	var out domain.Session
	var old domain.Session
	err = b.store.Update(ctx, func(tx domain.Tx) error {
		s, created, err := b.Ensure(tx, key, nil)
		if err != nil {
			return err
		}
		old = s
		if !created {
			s.SessionID = b.newID()
			s.InputTokens, s.OutputTokens, s.TotalTokens, s.ContextTokens = 0, 0, 0, 0
			s.SystemSent, s.AbortedLastRun = false, false
		}
		s.UpdatedAt = b.nowMs()
		out = s
		return tx.PutSession(s)
	})
	if err != nil {
		return domain.Session{}, err
	}
	if b.mirror != nil && old.SessionID != out.SessionID {
		if err := b.mirror.Archive(old.AgentID, old.SessionID, b.now()); err != nil {
			b.log.Warn("archive transcript mirror", "session", key, "err", err)
		}
	}
	b.log.Info("session reset", "session", key, "sessionId", out.SessionID)
	b.publish(domain.Event{Kind: domain.EventSession, SessionKey: key, Session: &out, Reason: "reset", TS: b.nowMs()})
	return out, nil
}

// Remove removes a session and its transcript. The main session of an
// agent cannot be deleted.
func (b *Book) Remove(ctx context.Context, ref string) error {
	key, err := b.Resolve(ctx, b.operator(), ref)
	if err != nil {
		return err
	}
	if b.keys.Kind(key) == domain.KindMain {
		return domain.Invalid("Cannot delete the main session (%s).", key)
	}
	if _, err := b.store.GetSession(ctx, key); err != nil {
		if errors.Is(err, domain.ErrNotFound) {
			return domain.Errorf(domain.CodeNotFound, "No session found: %s", ref)
		}
		return err
	}
	if _, err := b.stop(ctx, key); err != nil {
		return err
	}
	return b.Delete(ctx, key)
}

func (b *Book) Delete(ctx context.Context, key string) error {
	// The transcript file goes first: a crash before the row's deletion
	// commits leaves the session, its file rebuilt from the store at start
	// (and the deletion, when it was a cleanup, retried), never a file of
	// a session that no longer exists.
	if cur, err := b.store.GetSession(ctx, key); err == nil && b.mirror != nil {
		if err := b.mirror.Remove(cur.AgentID, cur.SessionID); err != nil {
			b.log.Warn("remove transcript mirror", "session", key, "err", err)
		}
	}
	var s domain.Session
	err := b.store.Update(ctx, func(tx domain.Tx) error {
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
	if b.mirror != nil {
		if err := b.mirror.Remove(s.AgentID, s.SessionID); err != nil {
			b.log.Warn("remove transcript mirror", "session", key, "err", err)
		}
	}
	b.log.Info("session deleted", "session", key)
	b.publish(domain.Event{Kind: domain.EventSession, SessionKey: key, Reason: "deleted", TS: b.nowMs()})
	return nil
}

// New builds the row of a session that does not exist yet.
func (b *Book) New(key string) (domain.Session, error) {
	k, err := sessionkey.Parse(key)
	if err != nil {
		return domain.Session{}, domain.Invalid("invalid session key %q: %v", key, err)
	}
	_, local := b.base.Agent(k.AgentID)
	remote := b.IsRemote(k.AgentID)
	if !local && !remote {
		return domain.Session{}, b.UnknownAgent(k.AgentID, key)
	}
	now := b.nowMs()
	s := domain.Session{
		Key:       key,
		AgentID:   k.AgentID,
		SessionID: b.newID(),
		Kind:      b.keys.Kind(key),
		ChatType:  sessionkey.ChatTypeFromKey(key),
		Channel:   sessionkey.ChannelFromKey(key),
		Sandboxed: b.conf().AgentSandboxed(k.AgentID),
		CreatedAt: now,
		UpdatedAt: now,
	}
	if remote {
		s.Channel = RemoteChannel
	}
	return s, nil
}

// Ensure returns the session row of key, creating it when missing.
func (b *Book) Ensure(tx domain.Tx, key string, init func(*domain.Session)) (domain.Session, bool, error) {
	s, err := tx.GetSession(key)
	if err == nil {
		return s, false, nil
	}
	if !errors.Is(err, domain.ErrNotFound) {
		return s, false, err
	}
	s, err = b.New(key)
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

// Get returns a session row by reference (key, main or sessionId).
func (b *Book) Get(ctx context.Context, ref string) (domain.Session, error) {
	key, err := b.Resolve(ctx, b.operator(), ref)
	if err != nil {
		return domain.Session{}, err
	}
	s, err := b.store.GetSession(ctx, key)
	if errors.Is(err, domain.ErrNotFound) {
		return s, domain.Errorf(domain.CodeNotFound, "No session found: %s", ref)
	}
	return s, err
}

// TranscriptPath is the JSONL mirror path of a session ("" without a mirror).
func (b *Book) TranscriptPath(s domain.Session) string {
	if b.mirror == nil || s.SessionID == "" {
		return ""
	}
	return b.mirror.Path(s.AgentID, s.SessionID)
}

// RelTranscriptPath is the session's transcript mirror path below the
// mirror's root (agents/<agentId>/sessions/<sessionId>.jsonl): what text a
// session can read (an announce) may name, without the server's directories.
func (b *Book) RelTranscriptPath(s domain.Session) string {
	path := b.TranscriptPath(s)
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

// ChannelOf is a session's channel as the session tools report it.
func ChannelOf(s domain.Session) string {
	var origin, delivery string
	if s.Origin != nil {
		origin = s.Origin.Provider
	}
	if s.Delivery != nil {
		delivery = s.Delivery.Channel
	}
	return sessionkey.DeriveChannel(s.Kind, s.Channel, origin, delivery, s.LastChannel, s.Key)
}

// AgentConfigured reports whether id is a configured agent.
func (b *Book) AgentConfigured(id string) bool {
	_, ok := b.base.Agent(id)
	return ok
}

// Facts are the send-policy inputs of key (a new key's are derived
// from the key alone).
func (b *Book) Facts(ctx context.Context, key string) (policy.SessionFacts, error) {
	f, _, err := b.FactsRow(ctx, key)
	return f, err
}

// FactsRow is sessionFacts and the stored session row it read (nil
// when there is none).
func (b *Book) FactsRow(ctx context.Context, key string) (policy.SessionFacts, *domain.Session, error) {
	s, err := b.store.GetSession(ctx, key)
	var row *domain.Session
	if err == nil {
		row = &s
	} else if s, err = b.New(key); err != nil {
		return policy.SessionFacts{}, nil, err
	}
	return policy.SessionFacts{Key: s.Key, Channel: ChannelOf(s), ChatType: s.ChatType, LastChannel: s.LastChannel, Override: s.SendPolicy}, row, nil
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
func (b *Book) lockLabel(ctx context.Context, agent, label string) (unlock func(), err error) {
	return b.store.Gate(ctx, "label\x00"+agent+"\x00"+label)
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
func (b *Book) patchSettings(p api.PatchRequest) (patchSet, error) {
	p, err := p.Normalize()
	if err != nil {
		return patchSet{}, err
	}
	if v, ok := p.Model.Value(); ok {
		if _, _, err := b.models.Resolve(v); err != nil {
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
