package gateway

import (
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
)

// Key printing (DESIGN §3b): gateway-native methods and the HTTP API show
// canonical keys (`agent:main:main`); tool results (tools.invoke,
// /api/tools, /mcp) keep the reference's `main` for the requester's own
// main session. The engine answers in the tools' spelling; canonical
// rewrites a key of such an answer for the native surfaces.

// canonical returns a key of a tool-shaped answer in canonical form: the
// one alias tools print, `main`, is the principal's requester agent's
// main session. Other keys are printed as the engine gave them; this is
// printing, never a decision.
func (s *Server) canonical(p api.Principal, key string) string {
	if !strings.EqualFold(strings.TrimSpace(key), "main") {
		return key
	}
	k, err := s.keys.Resolve(key, p.Requester())
	if err != nil {
		return key
	}
	return k
}

// canonicalRows rewrites the keys of session rows in place.
func (s *Server) canonicalRows(p api.Principal, rows []api.SessionRow) {
	for i := range rows {
		r := &rows[i]
		r.Key = s.canonical(p, r.Key)
		r.SpawnedBy = s.canonical(p, r.SpawnedBy)
		r.ParentSessionKey = s.canonical(p, r.ParentSessionKey)
	}
}
