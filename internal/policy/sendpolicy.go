package policy

import (
	"fmt"
	"strings"

	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// SessionFacts are what the send policy looks at for one target session.
type SessionFacts struct {
	// Key is the canonical session key (agent:<id>:<rest>).
	Key string
	// Channel is the channel of the call when it has one, else the
	// session entry's channel. Empty means unknown.
	Channel string
	// ChatType is the session entry's chat type (group|channel|direct).
	ChatType string
	// LastChannel is the channel the session last talked on.
	LastChannel string
	// Override is the session's own sendPolicy (allow|deny, any case);
	// anything else means inherit from config.
	Override string
}

// Decision is the outcome of a policy check with a human-readable reason.
type Decision struct {
	Allow  bool
	Reason string
}

// SendPolicy decides whether a send into the session described by s may
// run. The per-session override wins; without session.sendPolicy every send
// is allowed; otherwise the first matching deny rule denies, any matching
// allow rule allows, and session.sendPolicy.default (allow when unset)
// decides the rest.
func SendPolicy(cfg *config.SendPolicyConfig, s SessionFacts) Decision {
	switch strings.ToLower(strings.TrimSpace(s.Override)) {
	case domain.SendPolicyAllow:
		return Decision{Allow: true, Reason: "allowed by session override (sendPolicy=allow)"}
	case domain.SendPolicyDeny:
		return Decision{Allow: false, Reason: "denied by session override (sendPolicy=deny)"}
	}
	if cfg == nil {
		return Decision{Allow: true, Reason: "no session.sendPolicy configured"}
	}

	rawKey := strings.ToLower(strings.TrimSpace(s.Key))
	strippedKey := stripAgentPrefix(rawKey)
	channel := deriveChannel(s, strippedKey)
	chatType := normalizeChatType(s.ChatType)
	if chatType == "" {
		chatType = chatTypeFromKey(strippedKey)
	}

	allowAt := -1
	for i, r := range cfg.Rules {
		if !ruleMatches(r.Match, channel, chatType, rawKey, strippedKey) {
			continue
		}
		if strings.EqualFold(strings.TrimSpace(r.Action), domain.SendPolicyDeny) {
			return Decision{Allow: false, Reason: fmt.Sprintf("denied by session.sendPolicy.rules[%d] (%s)", i, describeMatch(r.Match))}
		}
		if allowAt < 0 {
			allowAt = i
		}
	}
	if allowAt >= 0 {
		return Decision{Allow: true, Reason: fmt.Sprintf("allowed by session.sendPolicy.rules[%d] (%s)", allowAt, describeMatch(cfg.Rules[allowAt].Match))}
	}
	switch strings.ToLower(strings.TrimSpace(cfg.Default)) {
	case domain.SendPolicyDeny:
		return Decision{Allow: false, Reason: "session.sendPolicy.default=deny"}
	case domain.SendPolicyAllow:
		return Decision{Allow: true, Reason: "session.sendPolicy.default=allow"}
	}
	return Decision{Allow: true, Reason: "no session.sendPolicy rule matched (default allow)"}
}

// ruleMatches reports whether every criterion present in m matches.
func ruleMatches(m config.SendPolicyMatch, channel, chatType, rawKey, strippedKey string) bool {
	if want := strings.ToLower(strings.TrimSpace(m.Channel)); want != "" && want != channel {
		return false
	}
	if want := normalizeChatType(m.ChatType); want != "" && want != chatType {
		return false
	}
	if p := strings.ToLower(strings.TrimSpace(m.KeyPrefix)); p != "" &&
		!strings.HasPrefix(rawKey, p) && !strings.HasPrefix(strippedKey, p) {
		return false
	}
	if p := strings.ToLower(strings.TrimSpace(m.RawKeyPrefix)); p != "" && !strings.HasPrefix(rawKey, p) {
		return false
	}
	return true
}

// describeMatch renders a rule's present criteria for a reason string.
func describeMatch(m config.SendPolicyMatch) string {
	var parts []string
	add := func(name, v string) {
		if v = strings.TrimSpace(v); v != "" {
			parts = append(parts, name+"="+strings.ToLower(v))
		}
	}
	add("channel", m.Channel)
	add("chatType", m.ChatType)
	add("keyPrefix", m.KeyPrefix)
	add("rawKeyPrefix", m.RawKeyPrefix)
	if len(parts) == 0 {
		return "matches every session"
	}
	return strings.Join(parts, " ")
}

// deriveChannel picks the channel: the call's or entry's, then the last
// channel, then the <channel> of a <channel>:group|channel:<id> key.
func deriveChannel(s SessionFacts, strippedKey string) string {
	for _, c := range []string{s.Channel, s.LastChannel} {
		if c = strings.ToLower(strings.TrimSpace(c)); c != "" {
			return c
		}
	}
	parts := strings.Split(strippedKey, ":")
	if len(parts) >= 3 && (parts[1] == "group" || parts[1] == "channel") {
		return parts[0]
	}
	return ""
}

// chatTypeFromKey classifies a key (without its agent prefix) by its
// tokens: group, channel, direct/dm, WhatsApp group JIDs (…@g.us) and
// Discord's guild-…:channel-… form.
func chatTypeFromKey(strippedKey string) string {
	tokens := strings.Split(strippedKey, ":")
	for i, t := range tokens {
		switch {
		case t == "group", strings.HasSuffix(t, "@g.us"):
			return "group"
		case t == "channel":
			return "channel"
		case t == "direct", t == "dm":
			return "direct"
		case strings.HasPrefix(t, "guild-") && i+1 < len(tokens) && strings.HasPrefix(tokens[i+1], "channel-"):
			return "channel"
		}
	}
	return ""
}

// normalizeChatType lowercases a chat type and folds the "dm" alias.
func normalizeChatType(t string) string {
	t = strings.ToLower(strings.TrimSpace(t))
	if t == "dm" {
		return "direct"
	}
	return t
}

// ParseSendPolicyValue parses a per-session send policy as sessions.patch
// and the owner-only /send command accept it: allow|on → "allow",
// deny|off → "deny", and inherit|default|reset → "" (inherit from config).
func ParseSendPolicyValue(s string) (string, error) {
	switch v := strings.ToLower(strings.TrimSpace(s)); v {
	case "allow", "on":
		return domain.SendPolicyAllow, nil
	case "deny", "off":
		return domain.SendPolicyDeny, nil
	case "inherit", "default", "reset":
		return "", nil
	}
	return "", domain.Invalid("invalid sendPolicy %q (use \"allow\"|\"deny\"|\"inherit\", or on|off)", clip(s, 64))
}
