package sessionkey

import "strings"

// DefaultAgentID is the agent of the implicit configuration, and what
// NormalizeAgentID returns when nothing usable is left of its input.
const DefaultAgentID = "main"

// MaxAgentIDLen is the longest agent id, in bytes.
const MaxAgentIDLen = 64

// ValidAgentID reports whether id matches ^[a-z0-9][a-z0-9_-]{0,63}$,
// ignoring case (ids are stored lowercase; see NormalizeAgentID).
func ValidAgentID(id string) bool {
	if id == "" || len(id) > MaxAgentIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		switch {
		case isAlnum(c):
		case i > 0 && (c == '_' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// NormalizeAgentID returns id trimmed and lowercased when that is a valid
// agent id. Otherwise every run of characters outside [a-z0-9_-] becomes one
// '-', leading '-' and '_' (an id starts with a letter or digit) and
// trailing '-' are dropped, and the result is cut to 64 bytes; when nothing
// is left it returns DefaultAgentID, as OpenClaw does.
func NormalizeAgentID(id string) string {
	id = strings.ToLower(strings.TrimSpace(id))
	if ValidAgentID(id) {
		return id
	}
	var b strings.Builder
	dash := false
	for i := 0; i < len(id); i++ {
		c := id[i]
		if isAlnum(c) || c == '_' || c == '-' {
			b.WriteByte(c)
			dash = false
			continue
		}
		// Non-ASCII bytes land here too, so a multi-byte rune collapses
		// into a single '-' along with its neighbours.
		if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.TrimRight(strings.TrimLeft(b.String(), "-_"), "-")
	if len(out) > MaxAgentIDLen {
		out = strings.TrimRight(out[:MaxAgentIDLen], "-")
	}
	if out == "" {
		return DefaultAgentID
	}
	return out
}

func isAlnum(c byte) bool { return ('a' <= c && c <= 'z') || ('0' <= c && c <= '9') }
