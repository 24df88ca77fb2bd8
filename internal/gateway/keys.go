package gateway

import (
	"context"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
)

// Key printing (docs/design.md#principals-scopes-and-the-gate): gateway-native methods and the HTTP API show
// canonical keys (`agent:main:main`); tool results (tools.invoke,
// /api/tools, /mcp) keep the reference's `main` for the requester's own
// main session. The engine answers in the tools' spelling; canonical
// rewrites a key of such an answer for the native surfaces.

// keyPrinter prints the keys of one principal's answers canonically.
type keyPrinter struct {
	// main is the canonical key of the principal's requester's main
	// session ("" when the engine did not say: keys stay as given).
	main string
}

// printer returns the key printer of p: the one alias tools print,
// `main`, is the main session api.Service.Defaults names for p. This is
// printing, never a decision.
func (s *Server) printer(ctx context.Context, p api.Principal) keyPrinter {
	d, err := s.eng.Defaults(ctx, p)
	if err != nil {
		return keyPrinter{}
	}
	return keyPrinter{main: d.MainSessionKey}
}

// key returns a key of a tool-shaped answer in canonical form.
func (k keyPrinter) key(key string) string {
	if k.main == "" || !strings.EqualFold(strings.TrimSpace(key), "main") {
		return key
	}
	return k.main
}

// rows rewrites the keys of session rows in place.
func (k keyPrinter) rows(rows []api.SessionRow) {
	for i := range rows {
		k.row(&rows[i])
	}
}

// row rewrites the keys of one session row in place.
func (k keyPrinter) row(r *api.SessionRow) {
	r.Key = k.key(r.Key)
	r.SpawnedBy = k.key(r.SpawnedBy)
	r.ParentSessionKey = k.key(r.ParentSessionKey)
}

// canonical returns key of p's answer in canonical form.
func (s *Server) canonical(ctx context.Context, p api.Principal, key string) string {
	return s.printer(ctx, p).key(key)
}
