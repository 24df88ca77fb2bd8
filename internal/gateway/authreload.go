package gateway

import (
	"sync/atomic"

	"github.com/switchboard-go/switchboard/internal/config"
)

// liveAuth is the server's authenticator, swapped whole when the gateway
// reloads its configuration (SetAuth): a request checks against the old
// or the new tokens, never a mix.
type liveAuth struct{ p atomic.Pointer[authenticator] }

func newLiveAuth(a authenticator) *liveAuth {
	l := &liveAuth{}
	l.p.Store(&a)
	return l
}

func (l *liveAuth) check(token string) (grant, bool) { return l.p.Load().check(token) }

func (l *liveAuth) required() bool { return l.p.Load().required() }

// SetAuth replaces the accepted tokens (the main token and
// gateway.auth.tokens) for every request and connection handshake from
// now on. Connections, requests and SSE streams already open whose token
// is gone, re-bound, or lost a scope they hold are ended: WebSocket
// connections with close code 1008 "credential revoked", HTTP requests
// and A2A streams with a forbidden error of the same words. The caller
// checks that the listener stays allowed (CheckListenAddr) when the new
// set is empty.
func (s *Server) SetAuth(token string, tokens []config.TokenBinding) {
	a := newAuthenticator(token, tokens)
	s.auth.p.Store(&a)
	s.revokeStale(a)
}
