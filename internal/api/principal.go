package api

import (
	"fmt"
	"strings"
)

// Scope is what a credential may do. Scopes are ordered: admin implies
// write, and write implies read (OpenClaw's operator scopes).
type Scope uint8

// Scopes, lowest first.
const (
	// ScopeRead lists and reads sessions, transcripts, runs and agents.
	ScopeRead Scope = 1 << iota
	// ScopeWrite sends messages, spawns sub-agents, starts and cancels runs.
	ScopeWrite
	// ScopeAdmin patches, resets and deletes sessions and runs commands.
	ScopeAdmin
	// ScopeApprovals reads and decides approvals (OpenClaw's
	// operator.approvals); admin implies it, write does not.
	ScopeApprovals
)

// AllScopes is what the operator (the local CLI, the gateway's main token,
// a gateway without a token) holds.
const AllScopes = ScopeRead | ScopeWrite | ScopeAdmin | ScopeApprovals

// Has reports whether s satisfies need, admin implying write implying read.
func (s Scope) Has(need Scope) bool {
	switch {
	case s&ScopeAdmin != 0:
		return true
	case need == ScopeRead:
		return s&(ScopeRead|ScopeWrite) != 0
	default:
		return s&need == need
	}
}

// Names returns the scope names s holds ("read", "write", "admin").
func (s Scope) Names() []string {
	var out []string
	for _, n := range []struct {
		s    Scope
		name string
	}{{ScopeRead, "read"}, {ScopeWrite, "write"}, {ScopeAdmin, "admin"}, {ScopeApprovals, "approvals"}} {
		if s&n.s != 0 {
			out = append(out, n.name)
		}
	}
	return out
}

// String is the name of a single scope, or the names of several joined by +.
func (s Scope) String() string { return strings.Join(s.Names(), "+") }

// ParseScope reads a scope name: read|write|admin|approvals, with or
// without OpenClaw's "operator." prefix. Other operator scopes (pairing,
// talk.secrets) grant nothing here and parse as 0.
func ParseScope(name string) (Scope, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	n = strings.TrimPrefix(n, "operator.")
	switch n {
	case "read":
		return ScopeRead, nil
	case "write":
		return ScopeWrite, nil
	case "admin":
		return ScopeAdmin, nil
	case "approvals":
		return ScopeApprovals, nil
	case "pairing", "talk.secrets":
		return 0, nil
	}
	return 0, fmt.Errorf("unknown scope %q (use read, write, admin or approvals)", name)
}

// ParseScopes reads a list of scope names; an empty list is def.
func ParseScopes(names []string, def Scope) (Scope, error) {
	if len(names) == 0 {
		return def, nil
	}
	var s Scope
	for _, n := range names {
		v, err := ParseScope(n)
		if err != nil {
			return 0, err
		}
		s |= v
	}
	return s, nil
}

// OperatorName names the operator principal in logs and idempotency scopes.
const OperatorName = "operator"

// Principal is who makes a call: every call on every surface carries one.
//
// A principal without a bound Session acts as the operator within its
// Scopes: visibility limits apply only when As names a requester session.
// A principal with a bound Session is that session on every surface —
// tools, HTTP, WS methods and events alike; As may only repeat it.
type Principal struct {
	// Name names the caller: OperatorName, or a token's configured name.
	// It scopes idempotency keys and appears in logs.
	Name string
	// Scopes the caller holds.
	Scopes Scope
	// Session is the session key a credential is bound to ("" = none).
	Session string
	// As is the requester session an unbound caller acts as ("" = the
	// operator's rights). `--as`, `?as=`, `requesterSessionKey` and
	// `switchboard mcp --session` set it.
	As string
	// RunID and ToolCallID are set when an agent of this engine calls a
	// tool inside one of its runs: they enable the reply-back loop, loop
	// safety and deadlines. Surfaces never set them.
	RunID      string
	ToolCallID string
}

// Operator is the principal of the local CLI without --as and of the
// gateway's main token.
func Operator() Principal { return Principal{Name: OperatorName, Scopes: AllScopes} }

// Requester returns the session the call acts as: the bound session, else
// As; "" means the operator.
func (p Principal) Requester() string {
	if p.Session != "" {
		return p.Session
	}
	return p.As
}

// IsOperator reports whether the call has operator rights (no requester).
func (p Principal) IsOperator() bool { return p.Requester() == "" }

// ActingAs returns p acting as requester key (the CLI's --as, MCP's
// --session). A bound principal keeps its session: the gate refuses an As
// that names another.
func (p Principal) ActingAs(key string) Principal {
	p.As = strings.TrimSpace(key)
	return p
}
