package gateway

import (
	"context"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

type subscribeKeyParams struct {
	Key string `json:"key"`
}

func (p subscribeKeyParams) key() string { return strings.TrimSpace(p.Key) }

// mSessionsSubscribe is sessions.subscribe (no params): the connection
// gets sessions.changed for the sessions it may see, and leaves the
// broadcast (docs/design.md#events-and-subscriptions).
func (s *Server) mSessionsSubscribe(_ context.Context, cl *call) (any, error) {
	if err := decodeParams(cl.method, cl.params, &struct{}{}); err != nil {
		return nil, err
	}
	s.fan.subscribeSessions(cl.c.sub, true)
	return map[string]any{"subscribed": true}, nil
}

// mSessionsUnsubscribe is sessions.unsubscribe.
func (s *Server) mSessionsUnsubscribe(_ context.Context, cl *call) (any, error) {
	if err := decodeParams(cl.method, cl.params, &struct{}{}); err != nil {
		return nil, err
	}
	s.fan.subscribeSessions(cl.c.sub, false)
	return map[string]any{"subscribed": false}, nil
}

// mMessagesSubscribe is sessions.messages.subscribe {key}: the session's
// chat, agent and session.message events. The key goes through the gate
// (Engine.SubscribeKey, GetSession's rule): a session the caller may not
// see answers exactly as an unknown one, a key it could see may be
// subscribed to before its session exists, and the subscription is on
// the canonical key.
func (s *Server) mMessagesSubscribe(ctx context.Context, cl *call) (any, error) {
	var p subscribeKeyParams
	if err := decodeParams(cl.method, cl.params, &p); err != nil {
		return nil, err
	}
	if err := requireString(cl.method, "key", p.key()); err != nil {
		return nil, err
	}
	// The limit is the session key's, named as the client sent it and
	// counted in characters (not bytes).
	lim := api.KeyChars
	if p.Key == "" {
		lim.Name = "sessionKey"
	} else {
		lim.Name = "key"
	}
	if err := lim.CheckChars(p.key()); err != nil {
		return nil, invalidParams(cl.method, "%s", domain.ErrorMessage(err))
	}
	key, err := s.eng.SubscribeKey(ctx, cl.principal(""), p.key())
	if err != nil {
		return nil, err
	}
	n, ok := s.fan.subscribeMessagesWithin(cl.c.sub, key, int(api.SubscribedSessions.Max))
	if !ok {
		return nil, invalidParams(cl.method, "key: a connection may subscribe to at most %d sessions (got %d already); unsubscribe from one first",
			api.SubscribedSessions.Max, n)
	}
	return map[string]any{"subscribed": true, "key": key, "count": n}, nil
}

// mMessagesUnsubscribe is sessions.messages.unsubscribe {key}. A key the
// gate does not resolve (a deleted session) is removed as given.
func (s *Server) mMessagesUnsubscribe(ctx context.Context, cl *call) (any, error) {
	var p subscribeKeyParams
	if err := decodeParams(cl.method, cl.params, &p); err != nil {
		return nil, err
	}
	if err := requireString(cl.method, "key", p.key()); err != nil {
		return nil, err
	}
	key, pr := p.key(), cl.principal("")
	if row, err := s.eng.GetSession(ctx, pr, key); err == nil {
		s.printer(ctx, pr).row(&row)
		key = row.Key
	}
	n := s.fan.subscribeMessages(cl.c.sub, key, false)
	return map[string]any{"subscribed": false, "key": key, "count": n}, nil
}
