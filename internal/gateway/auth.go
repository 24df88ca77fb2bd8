package gateway

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
)

// Operator scopes of the gateway protocol.
const (
	ScopeRead        = "operator.read"
	ScopeWrite       = "operator.write"
	ScopeAdmin       = "operator.admin"
	ScopeApprovals   = "operator.approvals"
	ScopePairing     = "operator.pairing"
	ScopeTalkSecrets = "operator.talk.secrets"
)

// allScopes is what the main token (or no token at all) grants.
func allScopes() []string {
	return []string{ScopeRead, ScopeWrite, ScopeAdmin, ScopeApprovals, ScopePairing, ScopeTalkSecrets}
}

// boundDefaultScopes is what a token bound to a session holds when its
// binding lists no scopes (docs/design.md#principals-scopes-and-the-gate): it reads and writes as that
// session, but does not administer sessions.
func boundDefaultScopes() []string { return []string{ScopeRead, ScopeWrite} }

// grant is what a credential allows: its name, its scopes (protocol
// names) and, for tokens bound to a session, that session.
type grant struct {
	name    string
	scopes  []string
	session string
	// limited: the grant's requests count against its token's rate limit
	// (every token of gateway.auth.tokens; not the main token).
	limited bool
}

// operatorGrant is the grant of the main token and of a gateway without
// tokens.
func operatorGrant() grant { return grant{name: api.OperatorName, scopes: allScopes()} }

// has reports whether the grant satisfies need. admin implies write and
// write implies read, as in OpenClaw.
func (g grant) has(need string) bool {
	return scopeSatisfied(g.scopes, need)
}

func scopeSatisfied(have []string, need string) bool {
	if slices.Contains(have, need) || slices.Contains(have, ScopeAdmin) {
		return true
	}
	return need == ScopeRead && slices.Contains(have, ScopeWrite)
}

// narrow returns the grant with only the requested scopes it holds; no
// request means everything granted.
func (g grant) narrow(requested []string) grant {
	if len(requested) == 0 {
		g.scopes = slices.Clone(g.scopes)
		return g
	}
	out := []string{}
	for _, s := range requested {
		if slices.Contains(g.scopes, s) && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	g.scopes = out
	return g
}

// principal is the api principal of a grant acting as requester as ("" =
// its own rights: the operator's within its scopes, or its bound
// session). The engine's gate decides everything else.
func (g grant) principal(as string) api.Principal {
	var sc api.Scope
	for _, s := range g.scopes {
		v, _ := api.ParseScope(s)
		sc |= v
	}
	name := g.name
	if name == "" {
		name = api.OperatorName
	}
	return api.Principal{Name: name, Scopes: sc, Session: g.session, As: strings.TrimSpace(as)}
}

// toolPrincipal is the principal a tool call runs as: the requester as
// when one is named, else the credential's own rights — the operator's
// within its scopes for an unbound credential (docs/design.md#principals-scopes-and-the-gate), its session
// for a bound one. The same rule as every other call.
func (g grant) toolPrincipal(as string) api.Principal {
	return g.principal(as)
}

// credential is one accepted token, kept as a digest so comparisons take
// the same time whatever the token's length.
type credential struct {
	digest [32]byte
	grant  grant
}

// authenticator checks tokens in constant time.
type authenticator struct {
	creds []credential
}

func newAuthenticator(token string, bindings []config.TokenBinding) authenticator {
	var a authenticator
	if token != "" {
		a.creds = append(a.creds, credential{digest: sha256.Sum256([]byte(token)), grant: operatorGrant()})
	}
	for i, b := range bindings {
		if b.Token == "" {
			continue
		}
		a.creds = append(a.creds, credential{digest: sha256.Sum256([]byte(b.Token)), grant: bindingGrant(i, b)})
	}
	return a
}

// bindingGrant is the grant of gateway.auth.tokens[i]: named by its name
// (else tokens[i]), with its scopes (default: all when unbound,
// read+write when bound to a session).
func bindingGrant(i int, b config.TokenBinding) grant {
	name := strings.TrimSpace(b.Name)
	if name == "" {
		name = fmt.Sprintf("tokens[%d]", i)
	}
	session := strings.TrimSpace(b.Session)
	return grant{name: name, scopes: bindingScopes(b.Scopes, session != ""), session: session, limited: true}
}

// bindingScopes maps a token binding's read|write|admin list to operator
// scopes; an empty list grants everything, or read+write for a token
// bound to a session.
func bindingScopes(names []string, bound bool) []string {
	if len(names) == 0 {
		if bound {
			return boundDefaultScopes()
		}
		return allScopes()
	}
	var out []string
	for _, n := range names {
		n = strings.ToLower(strings.TrimSpace(n))
		if !strings.HasPrefix(n, "operator.") {
			n = "operator." + n
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// required reports whether any token is configured.
func (a authenticator) required() bool { return len(a.creds) > 0 }

// check returns the grant of token. Every credential is compared, so the
// time taken does not tell which one matched.
func (a authenticator) check(token string) (grant, bool) {
	if !a.required() {
		return operatorGrant(), true
	}
	d := sha256.Sum256([]byte(token))
	found := -1
	for i, c := range a.creds {
		if subtle.ConstantTimeCompare(d[:], c.digest[:]) == 1 && found < 0 {
			found = i
		}
	}
	if found < 0 || token == "" {
		return grant{}, false
	}
	return a.creds[found].grant, true
}

// bearer extracts the token of an `Authorization: Bearer <token>` header.
func bearer(header string) string {
	const prefix = "bearer "
	if len(header) > len(prefix) && strings.EqualFold(header[:len(prefix)], prefix) {
		return strings.TrimSpace(header[len(prefix):])
	}
	return ""
}

type principalKey struct{}

// PrincipalOf returns the principal the gateway authenticated for a
// request it passes on (the MCP handler reads it).
func PrincipalOf(r *http.Request) (api.Principal, bool) {
	p, ok := r.Context().Value(principalKey{}).(api.Principal)
	return p, ok
}
