package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/policy"
)

type ChatRequest = api.ChatRequest

type ChatResult = api.ChatResult

// chat handles an inbound user message: commands first, then a run.
func (e *Engine) chat(ctx context.Context, req ChatRequest) (ChatResult, error) {
	msg := req.Message
	if strings.TrimSpace(msg) == "" {
		return ChatResult{}, domain.Invalid("message required")
	}
	if err := api.MessageChars.CheckChars(msg); err != nil {
		return ChatResult{}, err
	}
	if _, err := api.ChatTimeout.Apply(int64(req.TimeoutSeconds)); err != nil {
		return ChatResult{}, err
	}
	key, err := e.resolveRef(ctx, Requester{Operator: true}, orDefault(req.SessionKey, "main"))
	if err != nil {
		return ChatResult{}, err
	}
	channel := orDefault(req.Channel, "webchat")
	if res, handled, err := e.command(ctx, key, channel, req.SenderID, msg); handled || err != nil {
		return res, err
	}
	if req.Model != "" {
		if _, _, err := e.models.Resolve(req.Model); err != nil {
			return ChatResult{}, err
		}
	}
	if req.Thinking != "" {
		model := req.Model
		if model == "" {
			if s, err := e.store.GetSession(ctx, key); err == nil {
				model = e.modelFor(s)
			} else {
				model = e.cfg.AgentModel(e.keys.AgentOf(key))
			}
		}
		if err := e.models.ValidateThinking(model, req.Thinking); err != nil {
			return ChatResult{}, err
		}
	}
	facts, err := e.sessionFacts(ctx, key)
	if err != nil {
		return ChatResult{}, err
	}
	if facts.Channel == "" || facts.Channel == "unknown" {
		facts.Channel = channel
	}
	if d := policy.SendPolicy(e.cfg.Session.SendPolicy, facts); !d.Allow {
		e.log.Info("chat blocked by session policy", "session", key, "reason", d.Reason)
		return ChatResult{}, domain.Invalid("send blocked by session policy")
	}
	kind := orDefault(req.Kind, domain.RunKindChat)
	idem := ""
	if req.IdempotencyKey != "" {
		idem = kind + ":" + req.IdempotencyKey
	}
	fingerprint := api.Fingerprint(chatWork{SessionKey: key, Message: msg, Channel: channel, Model: req.Model,
		Thinking: req.Thinking, ExtraSystem: req.ExtraSystem})
	if prior, found, err := e.priorRun(ctx, idem, fingerprint); err != nil || found {
		if err != nil {
			return ChatResult{}, err
		}
		return ChatResult{Run: prior, SessionKey: prior.SessionKey}, nil
	}
	spec := runSpec{
		UserMessage: &domain.Message{Role: domain.RoleUser, Content: domain.TextContent(msg),
			Provenance: &domain.Provenance{Kind: domain.ProvenanceExternalUser, SourceChannel: channel}},
		System: req.ExtraSystem, Model: req.Model, Thinking: req.Thinking, Fingerprint: fingerprint,
	}
	raw, err := encodeSpec(spec)
	if err != nil {
		return ChatResult{}, err
	}
	created := false
	run, fresh, err := e.rt.Submit(ctx, domain.Run{SessionKey: key, AgentID: e.keys.AgentOf(key), Kind: kind,
		Lane: domain.LaneMain, IdempotencyKey: idem, Message: msg, Spec: raw, TimeoutMs: int64(req.TimeoutSeconds) * 1000},
		func(tx domain.Tx) error {
			s, isNew, err := e.ensureSession(tx, key, func(s *domain.Session) {
				if s.Channel == "" {
					s.Channel = channel
				}
			})
			if err != nil {
				return err
			}
			created = isNew
			if s.LastChannel != channel {
				s.LastChannel = channel
				return tx.PutSession(s)
			}
			return nil
		})
	if err != nil {
		return ChatResult{}, err
	}
	if !fresh {
		if err := sameWork(run, fingerprint); err != nil {
			return ChatResult{}, err
		}
	}
	if created {
		e.publishSession(key, "created")
	}
	return ChatResult{Run: run, SessionKey: key, Created: fresh}, nil
}

// command handles /new, /reset, /stop and /send before the model sees them.
func (e *Engine) command(ctx context.Context, key, channel, sender, msg string) (ChatResult, bool, error) {
	text := strings.TrimSpace(msg)
	if !strings.HasPrefix(text, "/") {
		return ChatResult{}, false, nil
	}
	fields := strings.Fields(text)
	name := strings.ToLower(fields[0])
	res := ChatResult{SessionKey: key, Command: strings.TrimPrefix(name, "/")}
	switch name {
	case "/new", "/reset":
		if len(fields) > 1 {
			return ChatResult{}, false, nil // "/new topic…" is an ordinary message
		}
		s, err := e.reset(ctx, key)
		if err != nil {
			return ChatResult{}, true, err
		}
		res.Reply = fmt.Sprintf("✅ New session started (sessionId %s).", s.SessionID)
		return res, true, nil
	case "/stop":
		if len(fields) > 1 {
			return ChatResult{}, false, nil
		}
		n, err := e.StopSession(ctx, key)
		if err != nil {
			return ChatResult{}, true, err
		}
		if n == 0 {
			res.Reply = "Nothing to stop."
		} else {
			res.Reply = fmt.Sprintf("⏹ Stopped %d run(s).", n)
		}
		return res, true, nil
	case "/send":
		if !e.isOwner(channel, sender) {
			return ChatResult{}, true, domain.Errorf(domain.CodeForbidden, "/send is only available to owners")
		}
		if len(fields) != 2 {
			return ChatResult{}, true, domain.Invalid("usage: /send on|off|inherit")
		}
		v, err := policy.ParseSendPolicyValue(fields[1])
		if err != nil {
			return ChatResult{}, true, domain.Invalid("usage: /send on|off|inherit (got %q)", fields[1])
		}
		if _, err := e.patch(ctx, key, PatchParams{SendPolicy: &v}); err != nil {
			return ChatResult{}, true, err
		}
		word := map[string]string{domain.SendPolicyAllow: "on", domain.SendPolicyDeny: "off", "": "inherit"}[v]
		res.Reply = "⚙️ Send policy set to " + word + "."
		return res, true, nil
	}
	return ChatResult{}, false, nil
}

func (e *Engine) isOwner(channel, sender string) bool {
	if channel == "webchat" && (sender == "" || sender == "webchat") {
		return true
	}
	return sender != "" && contains(e.cfg.Session.Owners, sender)
}

// waitRun waits for a run to end, up to timeout.
func (e *Engine) waitRun(ctx context.Context, runID string, timeout time.Duration) (domain.Run, error) {
	r, err := e.rt.Wait(ctx, runID, timeout)
	if errors.Is(err, domain.ErrNotFound) {
		return r, domain.Errorf(domain.CodeNotFound, "run not found: %s", runID)
	}
	return r, err
}

// getRun returns a run by id.
func (e *Engine) getRun(ctx context.Context, runID string) (domain.Run, error) {
	r, err := e.store.GetRun(ctx, runID)
	if errors.Is(err, domain.ErrNotFound) {
		return r, domain.Errorf(domain.CodeNotFound, "run not found: %s", runID)
	}
	return r, err
}

// listRuns lists runs, newest first.
func (e *Engine) listRuns(ctx context.Context, q domain.RunQuery) ([]domain.Run, error) {
	if q.SessionKey != "" {
		key, err := e.resolveRef(ctx, Requester{Operator: true}, q.SessionKey)
		if err != nil {
			return nil, err
		}
		q.SessionKey = key
	}
	return e.store.ListRuns(ctx, q)
}

// cancelRun cancels a run and every run it started.
func (e *Engine) cancelRun(ctx context.Context, runID string) (domain.Run, error) {
	r, err := e.rt.Cancel(ctx, runID)
	if errors.Is(err, domain.ErrNotFound) {
		return r, domain.Errorf(domain.CodeNotFound, "run not found: %s", runID)
	}
	return r, err
}

// StopSession cancels the session's queued and running runs.
func (e *Engine) StopSession(ctx context.Context, key string) (int, error) {
	runs, err := e.store.ListRuns(ctx, domain.RunQuery{SessionKey: key, Statuses: []string{domain.RunQueued, domain.RunRunning}})
	if err != nil {
		return 0, err
	}
	for _, r := range runs {
		if _, err := e.rt.Cancel(ctx, r.ID); err != nil {
			return 0, err
		}
	}
	return len(runs), nil
}

type PatchParams = api.PatchRequest

// patch changes a session's settings, creating the session when missing.
func (e *Engine) patch(ctx context.Context, ref string, p PatchParams) (domain.Session, error) {
	key, err := e.resolveRef(ctx, Requester{Operator: true}, ref)
	if err != nil {
		return domain.Session{}, err
	}
	if p.SendPolicy != nil && strings.TrimSpace(*p.SendPolicy) != "" {
		v, err := policy.ParseSendPolicyValue(*p.SendPolicy)
		if err != nil {
			return domain.Session{}, domain.Invalid(`invalid sendPolicy (use "allow"|"deny"|"inherit")`)
		}
		p.SendPolicy = &v
	}
	if p.Model != nil && *p.Model != "" {
		if _, _, err := e.models.Resolve(*p.Model); err != nil {
			return domain.Session{}, err
		}
	}
	if p.Label != nil && int64(len([]rune(*p.Label))) > api.LabelChars.Max {
		return domain.Session{}, domain.Invalid("invalid label: too long (max %d)", api.LabelChars.Max)
	}
	if p.ThinkingLevel != nil && *p.ThinkingLevel != "" {
		if !contains([]string{"off", "minimal", "low", "medium", "high"}, *p.ThinkingLevel) {
			return domain.Session{}, domain.Invalid("invalid thinkingLevel (use off|minimal|low|medium|high)")
		}
	}
	var out domain.Session
	err = e.store.Update(ctx, func(tx domain.Tx) error {
		s, _, err := e.ensureSession(tx, key, nil)
		if err != nil {
			return err
		}
		if p.Label != nil {
			l := strings.TrimSpace(*p.Label)
			if l != "" && l != s.Label {
				// Labels are unique per agent.
				if other, err := e.store.ListSessions(ctx, domain.SessionQuery{Label: l, AgentIDs: []string{s.AgentID}, Limit: 1}); err == nil && len(other) > 0 && other[0].Key != key {
					return domain.Invalid("label already in use: %s", l)
				}
			}
			s.Label = l
		}
		if p.SendPolicy != nil {
			s.SendPolicy = *p.SendPolicy
		}
		if p.Model != nil {
			s.ModelOverride = *p.Model
		}
		if p.ThinkingLevel != nil {
			if *p.ThinkingLevel != "" {
				if err := e.models.ValidateThinking(e.modelFor(s), *p.ThinkingLevel); err != nil {
					return err
				}
			}
			s.ThinkingLevel = *p.ThinkingLevel
		}
		if p.VerboseLevel != nil {
			s.VerboseLevel = *p.VerboseLevel
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

// Resolve resolves a key, a sessionId or a label to a canonical key.
func (e *Engine) Resolve(ctx context.Context, key, sessionID, label, agentID string) (string, error) {
	n := 0
	for _, s := range []string{key, sessionID, label} {
		if s != "" {
			n++
		}
	}
	switch {
	case n > 1:
		return "", domain.Invalid("Provide either key, sessionId, or label (not multiple)")
	case n == 0:
		return "", domain.Invalid("Either key, sessionId, or label is required")
	}
	switch {
	case key != "":
		k, err := e.resolveRef(ctx, Requester{Operator: true}, key)
		if err != nil {
			return "", err
		}
		if _, err := e.store.GetSession(ctx, k); err != nil {
			return "", domain.Errorf(domain.CodeNotFound, "No session found: %s", key)
		}
		return k, nil
	case sessionID != "":
		k, found, err := e.sessionByID(ctx, sessionID)
		if err != nil {
			return "", err
		}
		if !found {
			return "", domain.Errorf(domain.CodeNotFound, "No session found: %s", sessionID)
		}
		return k, nil
	}
	if int64(len([]rune(label))) > api.LabelChars.Max {
		return "", domain.Invalid("invalid label: too long (max %d)", api.LabelChars.Max)
	}
	q := domain.SessionQuery{Label: strings.TrimSpace(label), Limit: 10}
	if agentID != "" {
		q.AgentIDs = []string{agentID}
	}
	rows, err := e.store.ListSessions(ctx, q)
	if err != nil {
		return "", err
	}
	switch len(rows) {
	case 0:
		return "", domain.Errorf(domain.CodeNotFound, "No session found with label: %s", label)
	case 1:
		return rows[0].Key, nil
	}
	keys := make([]string, len(rows))
	for i, r := range rows {
		keys[i] = r.Key
	}
	return "", domain.Invalid("Multiple sessions found with label: %s (%s)", label, strings.Join(keys, ", "))
}

// DisplayKey shows key as requester sees it (`main` for its main session).
func (e *Engine) DisplayKey(key string) string {
	return e.keys.Display(key, e.cfg.DefaultAgentID())
}

// CanonicalKey resolves user input (`main`, a key, a sessionId) to a key.
func (e *Engine) CanonicalKey(ctx context.Context, ref string) (string, error) {
	return e.resolveRef(ctx, Requester{Operator: true}, ref)
}
