package textcheck

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// Unsafe reports whether r may not appear in a label or a file name: a
// control character (C0, DEL, C1) or a bidirectional-formatting character
// (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069).
func Unsafe(r rune) bool {
	if unicode.IsControl(r) {
		return true
	}
	switch {
	case r == 0x061C, r == 0x200E, r == 0x200F:
		return true
	case r >= 0x202A && r <= 0x202E:
		return true
	case r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// Problem describes what is wrong with s under the rule, or "" when
// nothing is. It never repeats s, since s is what could not be shown.
func Problem(s string) string {
	if !utf8.ValidString(s) {
		return "not valid UTF-8"
	}
	for _, r := range s {
		if Unsafe(r) {
			kind := "a control character"
			if !unicode.IsControl(r) {
				kind = "a bidirectional-formatting character"
			}
			return fmt.Sprintf("contains %s (%U)", kind, r)
		}
	}
	return ""
}

// Check refuses s when it breaks the rule, with a domain.CodeInvalid
// error naming field: `invalid label: contains a control character
// (U+0000)`.
func Check(field, s string) error {
	if p := Problem(s); p != "" {
		return domain.Invalid("invalid %s: %s", field, p)
	}
	return nil
}

// Escape returns s with unsafe characters and invalid UTF-8 bytes written
// as Go escapes (\x00, \u202e), so an error message or a log line cannot
// carry them.
func Escape(s string) string {
	if Problem(s) == "" {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case Unsafe(r) && r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case Unsafe(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
