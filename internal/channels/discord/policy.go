package discord

import (
	"regexp"
	"slices"
	"strings"
)

// Verdict is what the account's policy says about one message.
type Verdict int

// Verdicts.
const (
	// Admit: the message becomes a turn.
	Admit Verdict = iota
	// Drop: the policy ignores it (silently, as OpenClaw does).
	Drop
	// Pair: a direct message from an unknown sender under dmPolicy
	// "pairing": the channel layer answers with a pairing code.
	Pair
)

// Decision is a Verdict with its reason (logged) and whether the bot was
// mentioned.
type Decision struct {
	Verdict   Verdict
	Reason    string
	Mentioned bool
}

// where locates a guild message: its guild, the channel whose config
// applies (a thread's parent) and the thread ("" for none).
type where struct {
	GuildID, ChannelID, ThreadID string
}

// decide applies dmPolicy/allowFrom to direct messages and
// groupPolicy/guilds (channels, users, roles, requireMention) to guild
// messages. botID is the bot's user id (mentions of it count, and so do
// replies to its messages).
func (a Account) decide(m Message, w where, botID string) Decision {
	mentioned := isMentioned(m, botID)
	if m.GuildID == "" {
		switch a.DMPolicy {
		case "disabled":
			return Decision{Verdict: Drop, Reason: "dmPolicy disabled"}
		case "open":
			return Decision{Verdict: Admit, Mentioned: true}
		}
		if matchUser(a.AllowFrom, m.AuthorID) {
			return Decision{Verdict: Admit, Mentioned: true}
		}
		if a.DMPolicy == "allowlist" {
			return Decision{Verdict: Drop, Reason: "sender not in allowFrom"}
		}
		return Decision{Verdict: Pair, Reason: "unknown sender (dmPolicy pairing)"}
	}
	if a.GroupPolicy == "disabled" {
		return Decision{Verdict: Drop, Reason: "groupPolicy disabled"}
	}
	g, hasGuild := a.Guilds[w.GuildID]
	if !hasGuild {
		g, hasGuild = a.Guilds["*"]
	}
	allowlist := a.GroupPolicy == "" || a.GroupPolicy == "allowlist"
	if allowlist && !hasGuild {
		return Decision{Verdict: Drop, Reason: "guild not in channels.discord.guilds (groupPolicy allowlist)"}
	}
	var ch GuildChannel
	hasChannel := false
	for _, id := range []string{w.ThreadID, w.ChannelID, "*"} {
		if id == "" {
			continue
		}
		if c, ok := g.Channels[id]; ok {
			ch, hasChannel = c, true
			break
		}
	}
	if allowlist && len(g.Channels) > 0 && !hasChannel {
		return Decision{Verdict: Drop, Reason: "channel not in the guild's channels (groupPolicy allowlist)"}
	}
	if ch.Enabled != nil && !*ch.Enabled {
		return Decision{Verdict: Drop, Reason: "channel disabled"}
	}
	users, roles := g.Users, g.Roles
	if len(ch.Users) > 0 || len(ch.Roles) > 0 {
		users, roles = ch.Users, ch.Roles
	}
	if (len(users) > 0 || len(roles) > 0) && !matchUser(users, m.AuthorID) && !sharesRole(roles, m.RoleIDs) {
		return Decision{Verdict: Drop, Reason: "sender not in the guild's users or roles"}
	}
	require := true
	if g.RequireMention != nil {
		require = *g.RequireMention
	}
	if ch.RequireMention != nil {
		require = *ch.RequireMention
	}
	if require && !mentioned {
		return Decision{Verdict: Drop, Reason: "not mentioned (requireMention)"}
	}
	return Decision{Verdict: Admit, Mentioned: mentioned}
}

// isMentioned reports an @mention of the bot or a reply to its message.
func isMentioned(m Message, botID string) bool {
	if botID == "" {
		return false
	}
	return slices.Contains(m.MentionIDs, botID) || m.ReplyToAuthorID == botID ||
		strings.Contains(m.Content, "<@"+botID+">") || strings.Contains(m.Content, "<@!"+botID+">")
}

// matchUser reports whether list admits a user id: "*", the id, or the id
// written as user:<id>, discord:<id> or <@id>.
func matchUser(list []string, id string) bool {
	for _, e := range list {
		e = strings.TrimSpace(e)
		if e == "*" {
			return true
		}
		e = strings.TrimPrefix(strings.TrimPrefix(e, "discord:"), "user:")
		e = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(e, "<@"), "!"), ">")
		if e == id && id != "" {
			return true
		}
	}
	return false
}

func sharesRole(roles, have []string) bool {
	for _, r := range roles {
		r = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(r), "<@&"), ">")
		if slices.Contains(have, r) {
			return true
		}
	}
	return false
}

var mentionRe = regexp.MustCompile(`<@!?(\d+)>`)

// stripBotMention removes mentions of the bot from a message's text (the
// model needs the request, not the ping).
func stripBotMention(text, botID string) string {
	if botID == "" {
		return strings.TrimSpace(text)
	}
	out := mentionRe.ReplaceAllStringFunc(text, func(s string) string {
		if mentionRe.FindStringSubmatch(s)[1] == botID {
			return ""
		}
		return s
	})
	return strings.TrimSpace(out)
}
