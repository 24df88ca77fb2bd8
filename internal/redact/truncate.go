package redact

import "unicode/utf8"

// TruncationMarker is appended to a text field that was cut short.
const TruncationMarker = "\n…(truncated)…"

// utf16Prefix returns the longest prefix of s that is at most max UTF-16
// code units long, never splitting a character (so never a surrogate
// pair), and whether anything was cut. Limits are in UTF-16 units because
// that is how OpenClaw (JavaScript) counts string length.
func utf16Prefix(s string, max int) (string, bool) {
	if len(s) <= max {
		// Every UTF-16 unit takes at least one UTF-8 byte.
		return s, false
	}
	units := 0
	for i, r := range s {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if units+w > max {
			return s[:i], true
		}
		units += w
	}
	return s, false
}

// clipBytes returns a prefix of s of at most n bytes ending on a rune
// boundary.
func clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
