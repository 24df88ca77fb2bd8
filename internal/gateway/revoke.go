package gateway

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"slices"
	"sync"

	"github.com/coder/websocket"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// revokedReason is the close reason of a WebSocket connection, and the
// message of the error that ends an HTTP request or SSE stream, whose
// credential a configuration reload removed or narrowed.
const revokedReason = "credential revoked"

// errRevoked is the cause an HTTP request's context is cancelled with when
// its credential is revoked; the A2A stream writes it as its last event.
var errRevoked = domain.Errorf(domain.CodeForbidden, "%s: the gateway's configuration no longer grants this token what it was given", revokedReason)

// heldCred is what a connection or request was admitted with: the digest
// of the token it presented, the scopes it asked for (nil: all granted)
// and the grant it holds. A reload re-checks it (stillGranted).
type heldCred struct {
	digest    [32]byte
	token     bool
	requested []string
	grant     grant
}

func holdCred(token string, requested []string, g grant) heldCred {
	return heldCred{digest: sha256.Sum256([]byte(token)), token: token != "", requested: slices.Clone(requested), grant: g}
}

// stillGranted reports whether a grants h's token at least what h holds:
// the token is still accepted, bound to the same session, and every scope
// h holds is still granted. A gateway without tokens grants everything.
func (a authenticator) stillGranted(h heldCred) bool {
	if !a.required() {
		return true
	}
	if !h.token {
		return false
	}
	found := -1
	for i, c := range a.creds {
		if subtle.ConstantTimeCompare(h.digest[:], c.digest[:]) == 1 && found < 0 {
			found = i
		}
	}
	if found < 0 {
		return false
	}
	now := a.creds[found].grant.narrow(h.requested)
	if now.session != h.grant.session {
		return false
	}
	for _, s := range h.grant.scopes {
		if !slices.Contains(now.scopes, s) {
			return false
		}
	}
	return true
}

// heldRequests are the authenticated HTTP requests in progress (the JSON
// API, /mcp, A2A calls and streams), so a reload can end those whose
// credential it revoked.
type heldRequests struct {
	mu   sync.Mutex
	reqs map[*heldRequest]struct{}
}

type heldRequest struct {
	cred   heldCred
	cancel context.CancelCauseFunc
}

// hold registers a request admitted with cred; the returned context ends
// with errRevoked when a reload revokes cred. release unregisters it.
func (h *heldRequests) hold(ctx context.Context, cred heldCred) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	r := &heldRequest{cred: cred, cancel: cancel}
	h.mu.Lock()
	if h.reqs == nil {
		h.reqs = map[*heldRequest]struct{}{}
	}
	h.reqs[r] = struct{}{}
	h.mu.Unlock()
	return ctx, func() {
		h.mu.Lock()
		delete(h.reqs, r)
		h.mu.Unlock()
		cancel(context.Canceled)
	}
}

// revoke ends every request a no longer grants what it was admitted with.
func (h *heldRequests) revoke(a authenticator) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for r := range h.reqs {
		if !a.stillGranted(r.cred) {
			r.cancel(errRevoked)
			delete(h.reqs, r)
			n++
		}
	}
	return n
}

// revokeStale closes the WebSocket connections (1008 "credential
// revoked") and ends the HTTP requests and SSE streams whose credential a
// no longer grants what they were given: a token removed, re-bound to
// another session, or stripped of a scope the connection holds. The close
// handshakes run in parallel, each counted in connWG like the connection
// it ends, so a reload does not wait on a slow peer.
func (s *Server) revokeStale(a authenticator) {
	s.mu.Lock()
	var stale []*conn
	for c := range s.conns {
		if h := c.held.Load(); h != nil && !a.stillGranted(*h) {
			stale = append(stale, c)
		}
	}
	// Each stale connection's handler still counts in connWG, so adding
	// here cannot race a Shutdown's Wait at zero.
	s.connWG.Add(len(stale))
	s.mu.Unlock()
	for _, c := range stale {
		go func() {
			defer s.connWG.Done()
			c.close(websocket.StatusPolicyViolation, revokedReason)
		}()
	}
	n := s.held.revoke(a)
	if len(stale)+n > 0 {
		s.log.Info("credentials revoked by a configuration reload", "connections", len(stale), "requests", n)
	}
}
