package sessionkey

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// MaxKeyLen is the longest session key, in characters (runes) — the same
// unit as api.KeyChars, so a key the request check accepts is not refused
// here for being multi-byte.
const MaxKeyLen = 512

// agentPrefix starts every canonical key.
const agentPrefix = "agent:"

// Key is a parsed canonical session key agent:<AgentID>:<Rest>.
type Key struct {
	AgentID string
	// Rest is everything after the agent id: the main key, a sub-agent's
	// subagent:<uuid>, a group's <channel>:group:<id>, and so on.
	Rest string
}

// String returns the canonical form agent:<AgentID>:<Rest>.
func (k Key) String() string { return agentPrefix + k.AgentID + ":" + k.Rest }

// Segments returns Rest split at ':'.
func (k Key) Segments() []string { return strings.Split(k.Rest, ":") }

// Parse parses a key of the form agent:<agentId>:<rest>. It folds the
// key's case (Fold, so Key.String is canonical) and rejects keys longer than MaxKeyLen,
// keys with fewer than three colon-separated parts or an empty part, an
// invalid agent id, invalid UTF-8, and whitespace, control or other
// non-printing characters. Its errors are domain.CodeInvalid errors.
func Parse(key string) (Key, error) {
	if err := checkChars(key); err != nil {
		return Key{}, err
	}
	lower := Fold(key)
	if err := checkLen(lower); err != nil {
		return Key{}, err
	}
	after, ok := strings.CutPrefix(lower, agentPrefix)
	if !ok {
		return Key{}, invalid(key, "want agent:<agentId>:<rest>")
	}
	id, rest, ok := strings.Cut(after, ":")
	if !ok {
		return Key{}, invalid(key, "want agent:<agentId>:<rest>")
	}
	if !ValidAgentID(id) {
		return Key{}, invalid(key, fmt.Sprintf("agent id %q must match ^[a-z0-9][a-z0-9_-]{0,63}$", clip(id)))
	}
	if err := checkRest(key, rest); err != nil {
		return Key{}, err
	}
	return Key{AgentID: id, Rest: rest}, nil
}

// IsCanonical reports whether key parses and is already in canonical form.
func IsCanonical(key string) bool {
	k, err := Parse(key)
	return err == nil && k.String() == key
}

// checkChars rejects what can never appear in a key, before any case folding
// (strings.ToLower would silently turn invalid UTF-8 into U+FFFD).
func checkChars(key string) error {
	if key == "" {
		return invalid(key, "empty")
	}
	if !utf8.ValidString(key) {
		return invalid(key, "not valid UTF-8")
	}
	for _, r := range key {
		// IsPrint admits letters, marks, numbers, punctuation, symbols and
		// the ASCII space; everything else (control, format such as
		// zero-width characters, unassigned) could hide in logs and UIs.
		if r == ' ' || !unicode.IsPrint(r) {
			return invalid(key, fmt.Sprintf("contains whitespace or a non-printing character (%U)", r))
		}
	}
	return nil
}

// checkRest rejects an empty rest and empty segments (a leading, trailing
// or doubled ':').
func checkRest(key, rest string) error {
	if rest == "" {
		return invalid(key, "empty after agent:<agentId>:")
	}
	for seg := range strings.SplitSeq(rest, ":") {
		if seg == "" {
			return invalid(key, "has an empty ':'-separated part")
		}
	}
	return nil
}

// invalid returns the error for a malformed key. The key is clipped so a
// huge input does not become a huge message.
// checkLen refuses a key longer than MaxKeyLen characters, naming the field
// and the limit as api.Limit.CheckChars does.
func checkLen(key string) error {
	if n := utf8.RuneCountInString(key); n > MaxKeyLen {
		return domain.Invalid("sessionKey is too long (%d characters; max %d)", n, MaxKeyLen)
	}
	return nil
}

func invalid(key, problem string) error {
	return domain.Invalid("invalid session key %q: %s", clip(key), problem)
}

// clip shortens s for error messages, on a rune boundary.
func clip(s string) string {
	const max = 80
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// IsSubagentKey reports whether key is a sub-agent session key, that is
// its rest starts with "subagent:".
func IsSubagentKey(key string) bool {
	return strings.HasPrefix(restOf(key), "subagent:")
}

// SubagentDepth returns how many sub-agent levels key encodes: the number
// of "subagent" segments of its rest that have an id after them, that is the
// ":subagent:" occurrences, counted so an agent named "subagent" adds none.
// It is OpenClaw's fallback when a session row records no spawn depth.
func SubagentDepth(key string) int {
	segs := strings.Split(restOf(key), ":")
	n := 0
	for _, s := range segs[:len(segs)-1] {
		if s == "subagent" {
			n++
		}
	}
	return n
}

// NewSubagentKey returns agent:<agentID>:subagent:<id> for a new child
// session; agentID is normalized and id lowercased.
func NewSubagentKey(agentID, id string) string {
	return Key{AgentID: NormalizeAgentID(agentID), Rest: "subagent:" + strings.ToLower(id)}.String()
}

// restOf returns the rest of a canonical key, or the whole key (trimmed and
// lowercased) when it is not agent-scoped, so the classifiers treat legacy
// unprefixed keys the way OpenClaw does.
func restOf(key string) string {
	if k, err := Parse(key); err == nil {
		return k.Rest
	}
	return Fold(strings.TrimSpace(key))
}

// Fold is a key in canonical case: lowercase, except a Signal group id
// (the segment after `signal:group:`), which keeps its case as OpenClaw
// keeps it. Signal group ids are base64, so lower-casing one could merge
// two groups and would miss the rows of imported keys.
func Fold(key string) string {
	if !strings.Contains(strings.ToLower(key), "signal:group:") {
		return strings.ToLower(key)
	}
	segs := strings.Split(key, ":")
	for i, s := range segs {
		if i >= 2 && strings.EqualFold(segs[i-2], "signal") && strings.EqualFold(segs[i-1], "group") {
			continue
		}
		segs[i] = strings.ToLower(s)
	}
	return strings.Join(segs, ":")
}
