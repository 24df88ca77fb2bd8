package sessionkey

import (
	"slices"
	"strings"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// Channels without an external service.
const (
	ChannelInternal = "internal"
	ChannelUnknown  = "unknown"
)

// Chat types derived from keys.
const (
	ChatTypeGroup   = "group"
	ChatTypeChannel = "channel"
	ChatTypeDirect  = "direct"
)

// Kind classifies a canonical key (docs/design.md#session-keys-and-resolution), first match wins:
// agent:<id>:<mainKey> → main; a rest starting with cron: → cron, hook: →
// hook, node- or node: → node; a rest with a "group" or "channel" segment
// followed by an id → group; everything else, sub-agents included, → other.
// A key that is not agent-scoped is classified on the whole key, as a
// legacy unprefixed key.
func (r Resolver) Kind(key string) string {
	rest := restOf(key)
	switch {
	case rest == r.Main():
		return domain.KindMain
	case strings.HasPrefix(rest, "cron:"):
		return domain.KindCron
	case strings.HasPrefix(rest, "hook:"):
		return domain.KindHook
	case strings.HasPrefix(rest, "node-"), strings.HasPrefix(rest, "node:"):
		return domain.KindNode
	case hasMarker(rest, ChatTypeGroup, ChatTypeChannel):
		return domain.KindGroup
	}
	return domain.KindOther
}

// hasMarker reports whether a colon-separated segment of rest other than
// the last equals one of markers (a marker names what the next segment is:
// group:<id>).
func hasMarker(rest string, markers ...string) bool {
	for {
		s, tail, more := strings.Cut(rest, ":")
		if !more {
			return false
		}
		if slices.Contains(markers, s) {
			return true
		}
		rest = tail
	}
}

// ChatTypeFromKey returns the chat type a key implies: "group" or "channel"
// for …:group:<id> and …:channel:<id>, "direct" for …:direct:<peer> and
// …:dm:<peer>, and "" when the key says nothing. It also knows two
// channel-specific shapes OpenClaw recognises: a WhatsApp group id ending in
// "@g.us" (group) and Discord's guild-<g>:channel-<c> (channel).
func ChatTypeFromKey(key string) string {
	// The segments are walked in place: this runs for every session row
	// built, so it should not allocate a slice of them.
	rest := restOf(key)
	for {
		s, tail, more := strings.Cut(rest, ":")
		last := !more
		next, _, _ := strings.Cut(tail, ":")
		switch {
		case !last && s == "group":
			return ChatTypeGroup
		case !last && s == "channel":
			return ChatTypeChannel
		case !last && (s == "direct" || s == "dm"):
			return ChatTypeDirect
		case strings.HasSuffix(s, "@g.us"):
			return ChatTypeGroup
		case !last && strings.HasPrefix(s, "guild-") && strings.HasPrefix(next, "channel-"):
			return ChatTypeChannel
		}
		if last {
			return ""
		}
		rest = tail
	}
}

// ChannelFromKey returns <channel> of agent:<id>:<channel>:group:<x> and
// agent:<id>:<channel>:channel:<x> (also of the unprefixed legacy forms),
// else "".
func ChannelFromKey(key string) string {
	channel, after, ok := strings.Cut(restOf(key), ":")
	if !ok {
		return ""
	}
	marker, _, ok := strings.Cut(after, ":")
	if ok && (marker == "group" || marker == "channel") {
		return channel
	}
	return ""
}

// DeriveChannel returns the channel a session row reports (the reference's
// "Channel Field"), first match wins: kinds cron, hook and node → internal;
// the entry's channel, else its origin provider; the delivery context's
// channel, else the last channel; the channel of a group key; else unknown.
func DeriveChannel(kind, entryChannel, originProvider, deliveryChannel, lastChannel, key string) string {
	switch kind {
	case domain.KindCron, domain.KindHook, domain.KindNode:
		return ChannelInternal
	}
	for _, c := range []string{entryChannel, originProvider, deliveryChannel, lastChannel, ChannelFromKey(key)} {
		if c = strings.TrimSpace(c); c != "" {
			return c
		}
	}
	return ChannelUnknown
}

// LooksLikeSessionID reports whether s (trimmed) should be tried as a
// sessionId: it is a UUID of any version, in any case, or it is not
// key-shaped. Key-shaped means "main", "global", "unknown" or "current", a
// prefix agent:, cron:, hook:, node- or node:, or a :group: or :channel:
// part (OpenClaw's session keys). The empty string is neither.
func LooksLikeSessionID(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" {
		return false
	}
	if IsUUID(s) {
		return true
	}
	return !looksLikeKey(strings.ToLower(s))
}

func looksLikeKey(s string) bool {
	switch s {
	case aliasMain, aliasGlobal, aliasUnknown, aliasCurrent:
		return true
	}
	for _, p := range []string{agentPrefix, "cron:", "hook:", "node-", "node:"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return strings.Contains(s, ":group:") || strings.Contains(s, ":channel:")
}

// IsBareWord reports whether s (trimmed) is a bare word: no ':' and not
// key-shaped (a legacy node-<id> key is not one). A bare word that is not
// a sessionId names a session of the requester's agent.
func IsBareWord(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	return s != "" && !strings.Contains(s, ":") && !looksLikeKey(s)
}

// IsUUIDShaped reports whether s (trimmed) is a UUID or the start of one:
// hex digits with dashes where a UUID has them (8-4-4-4-12), with at least
// the first dash, such as "d386f8db-6fdf-4c7e". Such a reference is a
// sessionId lookup, never a new key.
func IsUUIDShaped(s string) bool {
	s = strings.TrimSpace(s)
	if len(s) < 9 || len(s) > 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch i {
		case 8, 13, 18, 23:
			if s[i] != '-' {
				return false
			}
		default:
			if !isHex(s[i]) {
				return false
			}
		}
	}
	return true
}

// IsUUID reports whether s is a UUID in the 8-4-4-4-12 hex form, any
// version, any case.
func IsUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !isHex(c) {
				return false
			}
		}
	}
	return true
}

func isHex(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

// ChatTypeOf is a session's chat type: the one stored with it (OpenClaw's
// sessions.json entry carries one), else the one its key implies.
func ChatTypeOf(stored, key string) string {
	if stored != "" {
		return stored
	}
	return ChatTypeFromKey(key)
}
