package config

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/switchboard-go/switchboard/internal/sessionkey"
)

// A2ARemote is one entry of `a2a.remotes`: an agent served by another A2A
// server (another switchboard, or any A2A 1.0/0.3 agent). Its id takes the
// place of an agent id in session keys, so `agent:<id>:<rest>` is a
// conversation with that remote agent.
type A2ARemote struct {
	// ID is the local name of the remote agent (the agent-id rules apply;
	// it must not clash with a local agent id).
	ID string `json:"id"`
	// URL is the remote agent's card (…/.well-known/agent-card.json, or
	// any URL that answers with the card).
	URL string `json:"url"`
	// Endpoint, when set, is the JSON-RPC endpoint the gateway calls,
	// whatever the card names: for a remote whose card names an endpoint
	// on another origin. Without it the card's endpoint must share the
	// card URL's origin when a token is set (the token goes nowhere else).
	Endpoint string `json:"endpoint,omitempty"`
	// Token, when set, is sent as `Authorization: Bearer <token>` on every
	// request to the remote (usually "${ENV_VAR}").
	Token string `json:"token,omitempty"`
}

// Remote returns the remote agent with id (case-insensitive).
func (c *Config) Remote(id string) (A2ARemote, bool) {
	id = strings.ToLower(strings.TrimSpace(id))
	for _, r := range c.A2A.Remotes {
		if strings.ToLower(r.ID) == id {
			return r, true
		}
	}
	return A2ARemote{}, false
}

// RemoteIDs lists the ids of a2a.remotes (lowercase, config order).
func (c *Config) RemoteIDs() []string {
	ids := make([]string, len(c.A2A.Remotes))
	for i, r := range c.A2A.Remotes {
		ids[i] = strings.ToLower(r.ID)
	}
	return ids
}

func (c *Config) checkA2ARemotes(v *checker) {
	local := c.AgentIDs()
	seen := map[string]int{}
	for i, r := range c.A2A.Remotes {
		path := fmt.Sprintf("a2a.remotes[%d]", i)
		id := strings.ToLower(r.ID)
		switch {
		case r.ID == "":
			v.add(path+".id", "must not be empty")
		case !sessionkey.ValidAgentID(r.ID):
			v.add(path+".id", "%q must match ^[a-z0-9][a-z0-9_-]{0,63}$", clip(r.ID))
		case slices.Contains(local, id):
			v.add(path+".id", "%q is also a local agent id (agents.list); a remote needs its own id", id)
		default:
			if j, dup := seen[id]; dup {
				v.add(path+".id", "duplicate remote id %q (also a2a.remotes[%d].id)", id, j)
			} else {
				seen[id] = i
			}
		}
		if r.URL == "" {
			v.add(path+".url", "must not be empty (the remote's agent card URL)")
		} else {
			checkURL(v, path+".url", r.URL)
		}
		if r.Endpoint != "" {
			checkURL(v, path+".endpoint", r.Endpoint)
		}
		if r.Token != "" && !printable(r.Token) {
			v.add(path+".token", "must not contain whitespace or control characters")
		}
	}
}

// ShownURL is the card URL as the operator's results may show it: its
// user info and the value of every query parameter masked ("***"), since
// either may carry a credential (https://user:pw@host/…, ?apikey=…).
func (r A2ARemote) ShownURL() string { return maskURL(r.URL) }

// maskURL masks raw's user info and query values; a URL that does not
// parse is shown as "***".
func maskURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "***"
	}
	if u.User != nil {
		u.User = url.User("***")
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			q[k] = []string{"***"}
		}
		u.RawQuery = q.Encode()
	}
	u.Fragment, u.RawFragment = "", ""
	return strings.ReplaceAll(u.String(), "%2A%2A%2A", "***")
}
