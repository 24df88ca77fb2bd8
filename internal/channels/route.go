package channels

import (
	"strings"

	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/sessionkey"
)

// Route is where an inbound message goes.
type Route struct {
	// AgentID is the agent that answers (bindings, else the default agent).
	AgentID string
	// SessionKey is the canonical key of the session.
	SessionKey string
	// Alternates are older keys of the same chat, tried in order before
	// SessionKey: the Router continues the first one that has a row (a
	// Discord thread imported as `…:channel:<threadId>`).
	Alternates []string
	// MainSession reports a route to the agent's main session (a direct
	// chat under dmScope "main", a group under groupScope "main").
	MainSession bool
}

// DM scopes (`session.dmScope`) and group scopes (`session.groupScope`).
const (
	DMScopeMain                  = "main"
	DMScopePerPeer               = "per-peer"
	DMScopePerChannelPeer        = "per-channel-peer"
	DMScopePerAccountChannelPeer = "per-account-channel-peer"
	GroupScopeMain               = "main"
	GroupScopePerGroup           = "per-group"
)

// Resolve routes m as OpenClaw does (its buildAgentPeerSessionKey):
//   - the agent is m.AgentID, else the most specific matching binding
//     (peer, then guild with roles, guild, team, account, channel), else
//     the default agent;
//   - groups and channels go to agent:<agentId>:<channel>:<kind>:<chatId>,
//     with `:topic:<threadId>` for a Telegram forum topic and
//     `:thread:<threadId>` for a Discord thread, or to the main key under
//     groupScope "main";
//   - direct chats go by dmScope: main (default) the agent's main key,
//     per-peer agent:<agentId>:direct:<peer>, per-channel-peer
//     agent:<agentId>:<channel>:direct:<peer>, per-account-channel-peer
//     agent:<agentId>:<channel>:<accountId>:direct:<peer>.
//
// Ids are lowercased, as keys are, except a Signal group id (base64),
// whose case OpenClaw keeps. A direct chat's PeerAliases become
// Alternates: the keys the same person had under another id form.
func Resolve(cfg *config.Config, m Inbound) Route {
	kind, peer := m.Peer()
	channel := strings.ToLower(strings.TrimSpace(m.Channel))
	account := normAccount(m.AccountID)
	dmScope, groupScope := cfg.Session.DMScope, cfg.Session.GroupScope
	agent := ""
	if b, ok := matchBinding(cfg.Bindings, channel, account, kind, peer, m); ok {
		agent = b.AgentID
		if b.Session != nil {
			if b.Session.DMScope != "" {
				dmScope = b.Session.DMScope
			}
			if b.Session.GroupScope != "" {
				groupScope = b.Session.GroupScope
			}
		}
	}
	if m.AgentID != "" {
		agent = m.AgentID
	}
	if strings.TrimSpace(agent) == "" {
		agent = cfg.DefaultAgentID()
	} else {
		agent = sessionkey.NormalizeAgentID(agent)
	}
	prefix := "agent:" + agent + ":"
	mainKey := prefix + cfg.MainKey()
	if channel == "signal" && kind == ChatGroup {
		peer = keySegmentKeepCase(peer) // OpenClaw keeps a Signal group id's case
	} else {
		peer = keySegment(peer)
	}
	if kind == ChatDirect {
		directKey := func(peer string) string {
			switch dmScope {
			case DMScopePerPeer:
				return prefix + "direct:" + peer
			case DMScopePerChannelPeer:
				return prefix + channel + ":direct:" + peer
			case DMScopePerAccountChannelPeer:
				return prefix + channel + ":" + account + ":direct:" + peer
			}
			return ""
		}
		key := directKey(peer)
		if peer == "" || key == "" {
			return Route{AgentID: agent, SessionKey: mainKey, MainSession: true}
		}
		r := Route{AgentID: agent, SessionKey: key}
		for _, alias := range m.PeerAliases {
			if a := keySegment(alias); a != "" && a != peer {
				r.Alternates = append(r.Alternates, directKey(a))
			}
		}
		return r
	}
	if groupScope == GroupScopeMain {
		return Route{AgentID: agent, SessionKey: mainKey, MainSession: true}
	}
	if peer == "" {
		peer = "unknown"
	}
	base := prefix + channel + ":" + kind + ":" + peer
	thread := keySegment(m.ThreadID)
	if thread == "" {
		return Route{AgentID: agent, SessionKey: base}
	}
	if channel == "telegram" {
		return Route{AgentID: agent, SessionKey: base + ":topic:" + thread}
	}
	return Route{AgentID: agent, SessionKey: base + ":thread:" + thread,
		Alternates: []string{prefix + channel + ":" + kind + ":" + thread}}
}

// matchBinding returns the most specific route binding matching the
// message; on a tie the first in config order wins.
func matchBinding(bs []config.Binding, channel, account, kind, peer string, m Inbound) (config.Binding, bool) {
	best, bestRank := config.Binding{}, -1
	for _, b := range bs {
		if b.Type != "" && b.Type != "route" {
			continue
		}
		r, ok := bindingRank(b.Match, channel, account, kind, peer, m)
		if ok && r > bestRank {
			best, bestRank = b, r
		}
	}
	return best, bestRank >= 0
}

// bindingRank reports whether match applies to the message and how
// specific it is (higher wins).
func bindingRank(match config.BindingMatch, channel, account, kind, peer string, m Inbound) (int, bool) {
	if !strings.EqualFold(strings.TrimSpace(match.Channel), channel) {
		return 0, false
	}
	acc := strings.TrimSpace(match.AccountID)
	switch {
	case acc == "*":
	case acc == "":
		if account != DefaultAccountID {
			return 0, false
		}
	case normAccount(acc) != account:
		return 0, false
	}
	rank := 0
	if acc != "" && acc != "*" {
		rank = 1
	}
	if match.TeamID != "" {
		return 0, false // no team-based provider here
	}
	if match.GuildID != "" {
		if match.GuildID != m.GuildID {
			return 0, false
		}
		rank = 3
		if len(match.Roles) > 0 {
			if !anyShared(match.Roles, m.Roles) {
				return 0, false
			}
			rank = 4
		}
	}
	if match.Peer != nil {
		pk := strings.ToLower(strings.TrimSpace(match.Peer.Kind))
		pid := strings.TrimSpace(match.Peer.ID)
		if pk == "dm" {
			pk = ChatDirect
		}
		// A thread matches a binding of its parent chat.
		if pk != kind || !(strings.EqualFold(pid, peer) || (m.ThreadID != "" && strings.EqualFold(pid, m.ThreadID))) {
			return 0, false
		}
		rank = 5
	}
	return rank, true
}

func anyShared(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}

// normAccount is an account id as keys carry it: lowercase, "default"
// when empty.
func normAccount(id string) string {
	id = strings.ToLower(strings.TrimSpace(id))
	if id == "" {
		return DefaultAccountID
	}
	return id
}

// keySegment makes an id safe as one key segment: trimmed, lowercase,
// with ':' and whitespace replaced by '-'.
func keySegment(id string) string {
	return keySegmentKeepCase(strings.ToLower(id))
}

// keySegmentKeepCase is keySegment without the lowercasing.
func keySegmentKeepCase(id string) string {
	id = strings.TrimSpace(id)
	return strings.Map(func(r rune) rune {
		if r == ':' || r == ' ' || r == '\t' || r == '\n' || r == '\r' {
			return '-'
		}
		return r
	}, id)
}
