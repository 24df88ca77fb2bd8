package gateway

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/audit"
)

// mAuditList is OpenClaw's audit.list {agentId?, sessionKey?, runId?,
// kind?, status?, after?, before?, limit?, cursor?} → {events, nextCursor?}.
func (s *Server) mAuditList(ctx context.Context, cl *call) (any, error) {
	var p api.AuditListRequest
	if err := decodeParams(cl.method, cl.params, &p); err != nil {
		return nil, err
	}
	return s.eng.AuditList(ctx, cl.principal(""), p)
}

// mAuditChainList is audit.chain.list {cursor?, limit?} → the chain's
// records with its anchor and head (a switchboard extension).
func (s *Server) mAuditChainList(ctx context.Context, cl *call) (any, error) {
	var p api.AuditChainRequest
	if err := decodeParams(cl.method, cl.params, &p); err != nil {
		return nil, err
	}
	return s.eng.AuditChain(ctx, cl.principal(""), p)
}

// apiAudit is GET /api/audit?agentId&sessionKey&runId&kind&status&after&before&limit&cursor
// → audit.list's answer.
func (s *Server) apiAudit(r *http.Request, g grant) (any, error) {
	q := r.URL.Query()
	p := api.AuditListRequest{AgentID: q.Get("agentId"), SessionKey: q.Get("sessionKey"), RunID: q.Get("runId"),
		Kind: q.Get("kind"), Status: q.Get("status"), Cursor: q.Get("cursor")}
	var err error
	if p.After, err = queryInt(r, "after", 0); err != nil {
		return nil, err
	}
	if p.Before, err = queryInt(r, "before", 0); err != nil {
		return nil, err
	}
	if p.Limit, err = queryInt(r, "limit", api.AuditListLimit.Min); err != nil {
		return nil, err
	}
	return s.eng.AuditList(r.Context(), g.principal(as(r)), p)
}

// apiAuditChain is GET /api/audit/chain?cursor&limit → audit.chain.list's
// answer.
func (s *Server) apiAuditChain(r *http.Request, g grant) (any, error) {
	p := api.AuditChainRequest{Cursor: r.URL.Query().Get("cursor")}
	var err error
	if p.Limit, err = queryInt(r, "limit", api.AuditChainLimit.Min); err != nil {
		return nil, err
	}
	return s.eng.AuditChain(r.Context(), g.principal(as(r)), p)
}

// authorize is the gateway's early check of op's rule (api.Authorize, the
// rule the engine's gate applies again); a refusal here never reaches the
// engine, so it is recorded here.
func (s *Server) authorize(ctx context.Context, p api.Principal, op api.Op, surface string) error {
	err := api.Authorize(p, op)
	if err != nil {
		s.record(ctx, audit.Entry{Kind: audit.KindRefusal, Actor: p.Name, Surface: surface, Op: string(op),
			Session: p.Requester(), Outcome: "refused", Detail: err.Error()})
	}
	return err
}

// record appends to the audit log; a failure is logged, not answered.
func (s *Server) record(ctx context.Context, e audit.Entry) {
	if err := s.eng.Record(ctx, e); err != nil {
		s.log.Error("audit record lost", "kind", e.Kind, "op", e.Op, "err", err)
	}
}

// tokenUses remembers which credentials were recorded on which surface
// today, so the audit log holds a credential's first use per surface and
// day over HTTP and MCP (every request would be a record per request),
// and one per connection over WS.
type tokenUses struct {
	mu   sync.Mutex
	day  string
	seen map[string]bool
}

// first reports whether name on surface is not yet recorded today.
func (u *tokenUses) first(name, surface string, now time.Time) bool {
	day := now.UTC().Format(time.DateOnly)
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.day != day || u.seen == nil {
		u.day, u.seen = day, map[string]bool{}
	}
	k := name + "\x00" + surface
	if u.seen[k] {
		return false
	}
	u.seen[k] = true
	return true
}

// recordTokenUse records a credential's use on a surface: a WS
// connection always, HTTP and MCP on the first request of the day.
func (s *Server) recordTokenUse(ctx context.Context, g grant, surface, detail string) {
	if surface != "ws" && !s.tokenUses.first(g.name, surface, time.Now()) {
		return
	}
	name := g.name
	if name == "" {
		name = api.OperatorName
	}
	s.record(ctx, audit.Entry{Kind: audit.KindTokenUse, Actor: name, Surface: surface, Op: "auth",
		Session: g.session, Target: name, Outcome: "ok", Detail: strings.Join(append([]string{detail}, g.scopes...), " ")})
}

// httpSurface names the surface of an HTTP request for the audit log.
func httpSurface(r *http.Request) string {
	if r.URL.Path == "/mcp" || strings.HasPrefix(r.URL.Path, "/mcp/") {
		return "mcp"
	}
	return "http"
}
