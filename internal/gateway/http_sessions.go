package gateway

import (
	"net/http"
	"slices"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/attachments"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// apiResolve finds a session by key, sessionId or label (+agentId):
// GET /api/sessions/resolve → {key} (canonical). A session the caller may
// not see is answered exactly as an unknown one.
func (s *Server) apiResolve(r *http.Request, g grant) (any, error) {
	q := r.URL.Query()
	return s.eng.Resolve(r.Context(), g.principal(as(r)), api.ResolveRequest{Key: q.Get("key"), SessionID: q.Get("sessionId"),
		Label: q.Get("label"), AgentID: q.Get("agentId")})
}

// apiGetSession is one session row: GET /api/sessions/{key} (a key,
// `main` or a sessionId), in the sessions_list row shape with canonical
// keys.
func (s *Server) apiGetSession(r *http.Request, g grant) (any, error) {
	p := g.principal(as(r))
	row, err := s.eng.GetSession(r.Context(), p, r.PathValue("key"))
	if err != nil {
		return nil, err
	}
	s.printer(r.Context(), p).row(&row)
	return row, nil
}

// apiDefaults are the session defaults as the caller sees them:
// GET /api/defaults → api.Defaults.
func (s *Server) apiDefaults(r *http.Request, g grant) (any, error) {
	return s.eng.Defaults(r.Context(), g.principal(as(r)))
}

// deliverBody is the body of POST /api/send (the WS `send`'s params).
type deliverBody struct {
	To             string             `json:"to"`
	Message        string             `json:"message"`
	Attachments    []attachments.Spec `json:"attachments"`
	Channel        string             `json:"channel"`
	SessionKey     string             `json:"sessionKey"`
	IdempotencyKey string             `json:"idempotencyKey"`
}

// apiDeliver queues a direct outbound message (operator only):
// POST /api/send → api.DeliverResult.
func (s *Server) apiDeliver(r *http.Request, g grant) (any, error) {
	var b deliverBody
	if err := s.readBody(r, &b); err != nil {
		return nil, err
	}
	p := g.principal(as(r))
	res, err := s.eng.Deliver(r.Context(), p, api.DeliverRequest{SessionKey: b.SessionKey, Channel: b.Channel, To: b.To,
		Message: b.Message, Attachments: b.Attachments, IdempotencyKey: b.IdempotencyKey})
	if err != nil {
		return nil, err
	}
	res.SessionKey = s.canonical(r.Context(), p, res.SessionKey)
	return res, nil
}

// apiOutbox lists deliveries (operator only):
// GET /api/outbox?status=&session=&run=&limit= → {items}.
func (s *Server) apiOutbox(r *http.Request, g grant) (any, error) {
	q := api.OutboxRequest{Statuses: domain.Typed[domain.OutboxStatus](queryList(r, "status")), SessionKey: r.URL.Query().Get("session"),
		RunID: s.aliases.run(r.URL.Query().Get("run"))}
	var err error
	if q.Limit, err = queryLimited(r, "limit", api.OutboxListLimit); err != nil {
		return nil, err
	}
	for _, st := range q.Statuses {
		if !slices.Contains(api.OutboxStatuses, st) {
			return nil, domain.Invalid("invalid query parameter status: %q is not an outbox status (%s)", st, strings.Join(domain.Strings(api.OutboxStatuses), "|"))
		}
	}
	items, err := s.eng.Outbox(r.Context(), g.principal(as(r)), q)
	if err != nil {
		return nil, err
	}
	if items == nil {
		items = []domain.OutboxItem{}
	}
	// A chat.send run goes by its idempotencyKey here too (runaliases.go).
	for i := range items {
		items[i].RunID = s.aliases.name(items[i].RunID)
	}
	return map[string]any{"items": items}, nil
}
