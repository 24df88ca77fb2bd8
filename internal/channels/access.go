package channels

import (
	"strings"
)

// Verdict is what an account's access rules decide for an inbound message.
type Verdict int

const (
	// Allow lets the message through to the Router.
	Allow Verdict = iota
	// Drop ignores it (logged at debug level with the reason).
	Drop
	// Pair answers an unknown direct sender with a pairing code (dmPolicy
	// "pairing").
	Pair
)

// Access is one account's access rules in OpenClaw's terms, for the
// providers whose config has the flat shape (dmPolicy, allowFrom,
// groupPolicy, groupAllowFrom, groups.<chatId>): Signal, WhatsApp and
// BlueBubbles.
type Access struct {
	// DMPolicy is "pairing" (default), "allowlist", "open" or "disabled".
	DMPolicy  string
	AllowFrom []string
	// GroupPolicy is "allowlist" (default), "open" or "disabled".
	GroupPolicy    string
	GroupAllowFrom []string
	// Groups are the per-chat settings by chat id ("*" for the others); a
	// non-empty map admits only the chats it names.
	Groups map[string]GroupAccess
	// Mentions reports that the provider marks mentions of the bot: only
	// then does requireMention (default true) gate group messages, since
	// otherwise no message could pass it.
	Mentions bool
	// Prefixes are the channel's own prefixes an allowFrom entry may carry
	// ("signal:"); they are stripped before comparing.
	Prefixes []string
}

// GroupAccess is `groups.<chatId>`.
type GroupAccess struct {
	Enabled        *bool
	RequireMention *bool
	AllowFrom      []string
	GroupPolicy    string
	SystemPrompt   string
}

// Decide applies the rules to m: dmPolicy and allowFrom for direct
// chats; groupPolicy, groups and groupAllowFrom (else allowFrom) for
// groups, then mention gating. It fills m.SystemPrompt from the chat's
// group entry. paired reports a sender approved through pairing.
func (a Access) Decide(m *Inbound, paired func(sender string) bool) (Verdict, string) {
	if m.ChatType == ChatDirect || m.ChatType == "" {
		switch orDefault(a.DMPolicy, "pairing") {
		case "disabled":
			return Drop, "dmPolicy disabled"
		case "open":
			return Allow, ""
		case "allowlist":
			if a.listed(a.AllowFrom, m) {
				return Allow, ""
			}
			return Drop, "sender not in allowFrom"
		default:
			if a.listed(a.AllowFrom, m) || (paired != nil && paired(m.SenderID)) {
				return Allow, ""
			}
			return Pair, "unknown sender"
		}
	}
	g, ok := a.Groups[m.ChatID]
	if !ok {
		g, ok = a.Groups["*"]
	}
	policy := orDefault(a.GroupPolicy, "allowlist")
	if ok && g.GroupPolicy != "" {
		policy = g.GroupPolicy
	}
	switch {
	case policy == "disabled":
		return Drop, "groupPolicy disabled"
	case len(a.Groups) > 0 && !ok:
		return Drop, "group not in groups"
	case ok && g.Enabled != nil && !*g.Enabled:
		return Drop, "group disabled"
	}
	senders := a.GroupAllowFrom
	if len(senders) == 0 {
		senders = a.AllowFrom
	}
	if ok && g.AllowFrom != nil {
		senders = g.AllowFrom
	}
	if policy == "open" {
		if ok && g.AllowFrom != nil && !a.listed(senders, m) {
			return Drop, "sender not in the group's allowFrom"
		}
	} else if !a.listed(senders, m) {
		return Drop, "sender not in groupAllowFrom"
	}
	require := true
	if ok && g.RequireMention != nil {
		require = *g.RequireMention
	}
	if require && a.Mentions && !m.Mentioned {
		return Drop, "not mentioned"
	}
	if ok {
		m.SystemPrompt = g.SystemPrompt
	}
	return Allow, ""
}

// listed reports whether an allowFrom list names the sender: "*", its id
// or one of its aliases, with or without the channel's prefix, ignoring
// case.
func (a Access) listed(list []string, m *Inbound) bool {
	for _, e := range list {
		e = strings.TrimSpace(e)
		for _, p := range a.Prefixes {
			if len(e) > len(p) && strings.EqualFold(e[:len(p)], p) {
				e = e[len(p):]
			}
		}
		if e == "*" {
			return true
		}
		if e == "" {
			continue
		}
		if strings.EqualFold(e, m.SenderID) {
			return true
		}
		for _, alias := range m.PeerAliases {
			if strings.EqualFold(e, alias) {
				return true
			}
		}
	}
	return false
}

func orDefault(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}
