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
func NormalizeThinking(level string) string { return normalizeLevel(level, thinkingAliases) }

// VerboseLevels are the session verbose levels (OpenClaw's
// normalizeVerboseLevel: off, on, full).
var VerboseLevels = []string{"off", "on", "full"}

// verboseAliases are the other spellings OpenClaw takes for them.
var verboseAliases = map[string]string{
	"false": "off", "no": "off", "0": "off",
	"true": "on", "yes": "on", "1": "on", "minimal": "on",
	"all": "full", "everything": "full",
}

// NormalizeVerbose returns a verbose level trimmed, lowercased and with
// OpenClaw's aliases mapped; a value that is no level comes back
// lowercased, for the check that refuses it to name.
func NormalizeVerbose(level string) string { return normalizeLevel(level, verboseAliases) }

// normalizeLevel trims and lowercases level and maps it through aliases.
func normalizeLevel(level string, aliases map[string]string) string {
	l := strings.ToLower(strings.TrimSpace(level))
	if a, ok := aliases[l]; ok {
		return a
	}
	return l
}
