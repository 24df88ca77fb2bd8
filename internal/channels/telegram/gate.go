package telegram

import (
	"strings"

	"github.com/switchboard-go/switchboard/internal/channels"
)

// verdict is what the access rules decide for an inbound message.
type verdict int

const (
	allow verdict = iota
	drop
	// pair asks for a pairing code (dmPolicy "pairing", unknown sender).
	pair
)

// access applies OpenClaw's access rules of an account to a message:
// dmPolicy/allowFrom for direct chats; groupPolicy, groups and
// groupAllowFrom for groups, then mention gating. It also fills the
// message's per-chat settings (systemPrompt, a topic's agentId). paired
// reports a sender approved through pairing.
func access(c *Config, m *channels.Inbound, paired func(sender string) bool) (verdict, string) {
	if m.ChatType == channels.ChatDirect {
		switch orDefault(c.DMPolicy, "pairing") {
		case "disabled":
			return drop, "dmPolicy disabled"
		case "open":
			return allow, ""
		case "allowlist":
			if listed(c.AllowFrom, m) {
				return allow, ""
			}
			return drop, "sender not in allowFrom"
		default: // pairing
			if listed(c.AllowFrom, m) || (paired != nil && paired(m.SenderID)) {
				return allow, ""
			}
			return pair, "unknown sender"
		}
	}
	g, t := groupOf(c, m.ChatID, m.ThreadID)
	policy := orDefault(c.GroupPolicy, "allowlist")
	if g != nil && g.GroupPolicy != "" {
		policy = g.GroupPolicy
	}
	if t != nil && t.GroupPolicy != "" {
		policy = t.GroupPolicy
	}
	if policy == "disabled" {
		return drop, "groupPolicy disabled"
	}
	if len(c.Groups) > 0 && g == nil {
		return drop, "group not in groups"
	}
	if (g != nil && g.Enabled != nil && !*g.Enabled) || (t != nil && t.Enabled != nil && !*t.Enabled) {
		return drop, "group disabled"
	}
	senders := c.GroupAllowFrom
	if len(senders) == 0 {
		senders = c.AllowFrom
	}
	if g != nil && g.AllowFrom != nil {
		senders = g.AllowFrom
	}
	if t != nil && t.AllowFrom != nil {
		senders = t.AllowFrom
	}
	switch policy {
	case "open":
		if (g != nil && g.AllowFrom != nil || t != nil && t.AllowFrom != nil) && !listed(senders, m) {
			return drop, "sender not in the group's allowFrom"
		}
	default: // allowlist
		if !listed(senders, m) {
			return drop, "sender not in groupAllowFrom"
		}
	}
	requireMention := true
	if g != nil && g.RequireMention != nil {
		requireMention = *g.RequireMention
	}
	if t != nil && t.RequireMention != nil {
		requireMention = *t.RequireMention
	}
	if requireMention && !m.Mentioned {
		return drop, "not mentioned"
	}
	if g != nil {
		m.SystemPrompt = g.SystemPrompt
	}
	if t != nil {
		if t.SystemPrompt != "" {
			m.SystemPrompt = strings.TrimSpace(m.SystemPrompt + "\n\n" + t.SystemPrompt)
		}
		m.AgentID = t.AgentID
	}
	return allow, ""
}

// groupOf returns the group entry of a chat (its own, else "*") and of
// its topic.
func groupOf(c *Config, chatID, threadID string) (*Group, *Topic) {
	g := c.Groups[chatID]
	if g == nil {
		g = c.Groups["*"]
	}
	if g == nil || threadID == "" {
		return g, nil
	}
	t := g.Topics[threadID]
	if t == nil {
		t = g.Topics["*"]
	}
	return g, t
}

// listed reports whether the sender is in an allowFrom list: "*", the
// user id (with or without a "telegram:"/"tg:" prefix) or @username.
func listed(list []any, m *channels.Inbound) bool {
	for _, e := range list {
		s := strings.ToLower(idString(e))
		s = strings.TrimPrefix(strings.TrimPrefix(s, "telegram:"), "tg:")
		switch {
		case s == "*":
			return true
		case s == m.SenderID && s != "":
			return true
		case strings.HasPrefix(s, "@") && m.SenderUsername != "" && s[1:] == strings.ToLower(m.SenderUsername):
			return true
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
