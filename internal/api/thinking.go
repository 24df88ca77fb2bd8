package api

import "strings"

// thinkingAliases are the other spellings OpenClaw's normalizeThinkLevel
// takes for switchboard's levels.
var thinkingAliases = map[string]string{
	"on": "low", "enable": "low", "enabled": "low",
	"min": "minimal",
	"mid": "medium", "med": "medium",
}

// NormalizeThinking returns a thinking level as every surface compares it:
// trimmed, lowercased, and OpenClaw's aliases mapped (on/enable/enabled →
// low, min → minimal, mid/med → medium), so `"High"` means high as it does
// for OpenClaw's clients. A value that is no level comes back lowercased,
// for the check that refuses it to name.
func NormalizeThinking(level string) string {
	l := strings.ToLower(strings.TrimSpace(level))
	if a, ok := thinkingAliases[l]; ok {
		return a
	}
	return l
}
