package sessionkey

import (
	"strings"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// DefaultMainKey is the main session's key suffix when session.mainKey is unset.
const DefaultMainKey = "main"

// Reserved literals. "global" and "unknown" are OpenClaw's special buckets,
// never listed; "current" means the requester's own key, which only the
// caller knows, so it must be resolved before Canonical is called.
const (
	aliasMain    = "main"
	aliasGlobal  = "global"
	aliasUnknown = "unknown"
	aliasCurrent = "current"
)

// Resolver turns the keys users and models write into canonical keys. It is
// a plain value built from config (session.mainKey, the default agent,
// session.scope == "global"); its zero value uses "main" for both.
type Resolver struct {
	// MainKey is session.mainKey; empty means DefaultMainKey.
	MainKey string
	// DefaultAgentID is the agent of keys that name none; empty means
	// DefaultAgentID.
	DefaultAgentID string
	// GlobalScope aliases the literal "global" to the main session.
	GlobalScope bool
}

// Main returns the lowercase main key suffix.
func (r Resolver) Main() string {
	if mk := strings.ToLower(strings.TrimSpace(r.MainKey)); mk != "" {
		return mk
	}
	return DefaultMainKey
}

// defaultAgent returns the lowercase default agent id.
func (r Resolver) defaultAgent() string {
	if id := strings.ToLower(strings.TrimSpace(r.DefaultAgentID)); id != "" {
		return id
	}
	return DefaultAgentID
}

// agentOrDefault returns the requester's agent id, lowercased, or the
// default agent when the requester is unknown.
func (r Resolver) agentOrDefault(requesterAgentID string) string {
	if id := strings.ToLower(strings.TrimSpace(requesterAgentID)); id != "" {
		return id
	}
	return r.defaultAgent()
}

// MainSessionKey returns agent:<agentID>:<mainKey>, with the default agent
// when agentID is empty.
func (r Resolver) MainSessionKey(agentID string) string {
	return Key{AgentID: r.agentOrDefault(agentID), Rest: r.Main()}.String()
}

// isMainAlias reports whether the lowercased input names the main session.
func (r Resolver) isMainAlias(s string) bool {
	return s == aliasMain || s == r.Main() || (r.GlobalScope && s == aliasGlobal)
}

// Canonical returns the canonical key for input, as written by a user, a
// model or a client, on behalf of an agent (requesterAgentID; empty means the
// default agent):
//
//   - "main", the configured main key and, with GlobalScope, "global" become
//     agent:<requester>:<mainKey>;
//   - agent:<id>:<rest> is validated and lowercased;
//   - a bare word x (IsBareWord) becomes agent:<requester>:x;
//   - any other key x (legacy cron:<id>, hook:<uuid>, node:<id>,
//     <channel>:group:<id>, …) becomes agent:<defaultAgent>:x;
//   - "global" (without GlobalScope), "unknown" and "current" are reserved
//     and refused (Resolve knows what "current" means).
//
// Errors are domain.CodeInvalid errors that say what is wrong with the key.
// Canonical of a canonical key returns it unchanged.
func (r Resolver) Canonical(input, requesterAgentID string) (string, error) {
	s := strings.TrimSpace(input)
	if err := checkChars(s); err != nil {
		return "", err
	}
	if err := checkLen(s); err != nil {
		return "", err
	}
	s = Fold(s)

	var k Key
	switch {
	case r.isMainAlias(s):
		id := r.agentOrDefault(requesterAgentID)
		if !ValidAgentID(id) {
			return "", domain.Invalid("invalid requester agent id %q: must match ^[a-z0-9][a-z0-9_-]{0,63}$", clip(id))
		}
		k = Key{AgentID: id, Rest: r.Main()}
	case s == aliasGlobal || s == aliasUnknown:
		return "", domain.Invalid("invalid session key %q: reserved", s)
	case s == aliasCurrent:
		return "", domain.Invalid("invalid session key %q: reserved (it means the requester's own session)", s)
	case strings.HasPrefix(s, agentPrefix):
		parsed, err := Parse(s)
		if err != nil {
			return "", err
		}
		return parsed.String(), nil
	default:
		// A bare word is a key of the requester's agent; a legacy key
		// (cron:…, hook:…, node-…, <channel>:group:…) belongs to the
		// default agent, as OpenClaw's unprefixed keys did.
		id, what := r.defaultAgent(), "default"
		if IsBareWord(s) {
			id = r.agentOrDefault(requesterAgentID)
			if strings.TrimSpace(requesterAgentID) != "" {
				what = "requester"
			}
		}
		if !ValidAgentID(id) {
			return "", domain.Invalid("invalid %s agent id %q: must match ^[a-z0-9][a-z0-9_-]{0,63}$", what, clip(id))
		}
		if err := checkRest(s, s); err != nil {
			return "", err
		}
		k = Key{AgentID: id, Rest: s}
	}
	// Re-parse the result: it enforces the length limit on the final key and
	// keeps "Canonical output always parses" true by construction.
	parsed, err := Parse(k.String())
	if err != nil {
		return "", err
	}
	return parsed.String(), nil
}

// Resolve is Canonical for a caller that knows its own session key:
// "current" means requesterKey itself, and "main" the main session of
// requesterKey's agent. An empty requesterKey stands for the default agent's
// main session.
func (r Resolver) Resolve(input, requesterKey string) (string, error) {
	if strings.ToLower(strings.TrimSpace(input)) == aliasCurrent {
		if strings.TrimSpace(requesterKey) == "" {
			return r.MainSessionKey(""), nil
		}
		return r.Canonical(requesterKey, "")
	}
	return r.Canonical(input, r.AgentOf(requesterKey))
}

// AgentOf returns the agent id of a canonical key, and the default agent for
// anything else (legacy unprefixed keys belong to the default agent).
func (r Resolver) AgentOf(key string) string {
	if k, err := Parse(key); err == nil {
		return k.AgentID
	}
	return r.defaultAgent()
}

// Display returns "main" when key is the requester agent's main session key
// (requesterAgentID empty means the default agent), else key unchanged.
func (r Resolver) Display(key, requesterAgentID string) string {
	if strings.ToLower(strings.TrimSpace(key)) == r.MainSessionKey(requesterAgentID) {
		return aliasMain
	}
	return key
}
