package engine

import (
	"context"
	"slices"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/attachments"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/idempotency"
	"github.com/switchboard-go/switchboard/internal/policy"
	"github.com/switchboard-go/switchboard/internal/runs"
	"github.com/switchboard-go/switchboard/internal/runspec"
	"github.com/switchboard-go/switchboard/internal/sessions"
	"github.com/switchboard-go/switchboard/internal/tracing"
)

// chat handles an inbound user message: commands first, then a run.
func (e *Engine) chat(ctx context.Context, req api.ChatRequest) (api.ChatResult, error) {
	msg := req.Message
	req.Thinking = api.NormalizeThinking(req.Thinking)
	if strings.TrimSpace(msg) == "" && len(req.Attachments) == 0 {
		return api.ChatResult{}, domain.Invalid("message required")
	}
	if err := checkChatTexts(req); err != nil {
		return api.ChatResult{}, err
	}
	if err := e.checkChatFiles(req); err != nil {
		return api.ChatResult{}, err
	}
	if _, err := api.ChatTimeout.Apply(int64(req.TimeoutSeconds)); err != nil {
		return api.ChatResult{}, err
	}
	key, err := e.resolveRef(ctx, Requester{Operator: true}, orDefault(req.SessionKey, "main"))
	if err != nil {
		return api.ChatResult{}, runRequestError(err)
	}
	if err := e.arrival(req.Chain, key); err != nil {
		return api.ChatResult{}, err
	}
	channel, err := e.inboundChannel(ctx, key, req.Channel)
	if err != nil {
		return api.ChatResult{}, err
	}
	if res, handled, err := e.sessions.Command(ctx, key, channel, req.SenderID, msg); handled || err != nil {
		if err == nil {
			e.commandAnswered(ctx, key, channel, req, res)
		}
		return res, err
	}
	if res, handled, err := e.approvals.Command(ctx, key, channel, req.SenderID, msg); handled || err != nil {
		if err == nil {
			e.commandAnswered(ctx, key, channel, req, res)
		}
		return res, err
	}
	if req.Model != "" {
		if _, _, err := e.models.Resolve(req.Model); err != nil {
			return api.ChatResult{}, err
		}
	}
	if req.Thinking != "" {
		model := req.Model
		if model == "" {
			if s, err := e.store.GetSession(ctx, key); err == nil {
				model = e.sessions.ModelFor(s)
			} else {
				model = e.conf().AgentModel(e.keys.AgentOf(key))
			}
		}
		if err := e.models.ValidateThinking(model, req.Thinking); err != nil {
			return api.ChatResult{}, err
		}
	}
	facts, row, err := e.sessions.FactsRow(ctx, key)
	if err != nil {
		return api.ChatResult{}, err
	}
	if facts.Channel == "" || facts.Channel == "unknown" {
		facts.Channel = channel
	}
	if d := policy.SendPolicy(e.conf().Session.SendPolicy, facts); !d.Allow {
		e.log.Info("chat blocked by session policy", "session", key, "reason", d.Reason)
		return api.ChatResult{}, domain.Invalid("send blocked by session policy")
	}
	deliver, err := e.chatDelivery(ctx, key, channel, req)
	if err != nil {
		return api.ChatResult{}, err
	}
	kind := orDefault(req.Kind, domain.RunKindChat)
	idem := ""
	if req.IdempotencyKey != "" {
		// Every chat surface is one operation (docs/design.md#principals-scopes-and-the-gate):
		// a key used on WS `agent` names the same work on `chat.send`, HTTP
		// chat and the CLI, whatever kind the run records.
		idem = string(domain.RunKindChat) + ":" + req.IdempotencyKey
	}
	fingerprint := api.Fingerprint(idempotency.ChatWork{SessionKey: key, Message: msg, Channel: channel, Model: req.Model,
		Thinking: req.Thinking, ExtraSystem: req.ExtraSystem, Deliver: deliver, Files: attachments.Digest(req.Attachments)})
	if _, resets := sessions.ResetRemainder(msg); resets {
		// Held until the run commits: a duplicate must not pass the lookup
		// while this call resets the session (idem_gate.go). Other chats
		// need no gate, the store dedupes their run by key (CreateRun),
		// so the common turn pays no lock (a round trip each way on
		// PostgreSQL).
		unlockIdem, err := idempotency.Lock(ctx, e.store, idem)
		if err != nil {
			return api.ChatResult{}, err
		}
		defer unlockIdem()
	}
	if prior, found, err := idempotency.Prior(ctx, e.store, idem, fingerprint); err != nil || found {
		if err != nil {
			return api.ChatResult{}, err
		}
		return api.ChatResult{Run: prior, SessionKey: prior.SessionKey}, nil
	}
	if rest, ok := sessions.ResetRemainder(msg); ok {
		// The fingerprint above keeps the whole message, so a retry finds
		// this run instead of resetting again.
		if _, err := e.sessions.Reset(ctx, key); err != nil {
			return api.ChatResult{}, err
		}
		msg = rest
		row = nil // (read before the reset)
	}
	if err := e.guards.Admit(key); err != nil {
		return api.ChatResult{}, err
	}
	content, err := e.chatContent(key, msg, req.Attachments)
	if err != nil {
		return api.ChatResult{}, err
	}
	msg = content.Text()
	spec := runspec.Spec{
		Spec: runs.Spec{UserMessage: &domain.Message{Role: domain.RoleUser, Content: content,
			Provenance: &domain.Provenance{Kind: domain.ProvenanceExternalUser, SourceChannel: channel}}},
		System: req.ExtraSystem, Model: req.Model, Thinking: req.Thinking, Fingerprint: fingerprint,
		Chain: slices.Clone(req.Chain), Deliver: deliver, TraceParent: tracing.Root(ctx, "chat"),
	}
	raw, err := runspec.Encode(spec)
	if err != nil {
		return api.ChatResult{}, err
	}
	timeoutMs := int64(req.TimeoutSeconds) * 1000
	if timeoutMs == 0 && e.sessions.IsRemote(e.keys.AgentOf(key)) {
		timeoutMs = sessions.RemoteRunTimeout().Milliseconds() // a remote that never answers (remote.go)
	}
	asChild, err := e.childOf(ctx, e.parentOf(req))
	if err != nil {
		return api.ChatResult{}, err
	}
	created := false
	run, fresh, err := e.rt.SubmitSpec(ctx, domain.Run{SessionKey: key, AgentID: e.keys.AgentOf(key), Kind: kind,
		Lane: domain.LaneMain, IdempotencyKey: idem, Message: msg, Spec: raw, TimeoutMs: timeoutMs},
		spec.Runtime(), row, func(tx domain.Tx) error {
			s, isNew, err := e.sessions.Ensure(tx, key, func(s *domain.Session) {
				if s.Channel == "" {
					s.Channel = channel
				}
				asChild(s)
			})
			if err != nil {
				return err
			}
			created = isNew
			if recordDelivery(&s, channel, req) {
				return tx.PutSession(s)
			}
			return nil
		})
	if err != nil {
		return api.ChatResult{}, err
	}
	if !fresh {
		if err := idempotency.SameWork(run, fingerprint); err != nil {
			return api.ChatResult{}, err
		}
	}
	if created {
		e.publishSession(key, "created")
	}
	return api.ChatResult{Run: run, SessionKey: key, Created: fresh}, nil
}

// recordDelivery notes on s the channel a message arrived on and, when the
// message carried them, its delivery hints (to, accountId, threadId): the
// reference's lastChannel/lastTo and deliveryContext. It reports whether
// s changed.
func recordDelivery(s *domain.Session, channel string, req api.ChatRequest) bool {
	changed := false
	if s.LastChannel != channel {
		s.LastChannel = channel
		changed = true
	}
	if t := strings.TrimSpace(req.ChatType); t != "" && s.ChatType != t {
		s.ChatType = t
		changed = true
	}
	if n := strings.TrimSpace(req.DisplayName); n != "" && s.DisplayName != n {
		s.DisplayName = n
		changed = true
	}
	to, account, thread := strings.TrimSpace(req.To), strings.TrimSpace(req.AccountID), strings.TrimSpace(req.ThreadID)
	if to == "" && account == "" && thread == "" {
		return changed
	}
	d := domain.DeliveryContext{Channel: channel, To: to, AccountID: account, ThreadID: thread}
	if s.Delivery == nil || *s.Delivery != d {
		s.Delivery = &d
		changed = true
	}
	if to != "" && s.LastTo != to {
		s.LastTo = to
		changed = true
	}
	if account != "" && s.LastAccount != account {
		s.LastAccount = account
		changed = true
	}
	if s.Origin == nil {
		s.Origin = &domain.Origin{Provider: channel, AccountID: account}
		changed = true
	}
	return changed
}

// checkChatTexts refuses a chat whose message or delivery hints are over
// their api limits or hold U+0000. The hints are stored on the session row
// and shown in every listing of it: unbounded, one call could make every
// sessions.list answer megabytes.
func checkChatTexts(req api.ChatRequest) error {
	for _, c := range []struct {
		l api.Limit
		s string
	}{
		{api.MessageChars, req.Message}, {api.DeliverToChars, req.To}, {api.ChatReplyToChars, req.ReplyTo},
		{api.ChatAccountIDChars, req.AccountID}, {api.ChatThreadIDChars, req.ThreadID}, {api.ChatSenderIDChars, req.SenderID},
	} {
		if err := c.l.CheckChars(c.s); err != nil {
			return err
		}
	}
	return nil
}
