package redact

import "strings"

// mayHoldSecret reports whether s could match one of New's patterns. It
// is a superset test that costs one pass over s, so the nine regular
// expressions run only on texts that have a trigger: most transcript
// text (and every message sessions_search indexes) has none, and the
// regexps' backtracking was most of the cost of indexing a message.
//
// Every pattern needs one of these, ASCII case-insensitively:
//   - key, token, secret, passw(ord|d): the env, assignment, JSON-field and
//     flag patterns;
//   - authorization, bearer: the header patterns;
//   - sk-, gh[pousr]_, github_pat_, xox, xapp-, gsk_, aiza, pplx-, npm_:
//     the token prefixes;
//   - -----begin: a PEM block;
//   - six digits then a colon: a Telegram bot token.
//
// The case-insensitive patterns also match the two non-ASCII runes that
// fold to ASCII letters (U+017F to s, U+212A, the Kelvin sign, to k); a text holding
// either always goes to the regexps.
func mayHoldSecret(s string) bool {
	if strings.ContainsRune(s, 'ſ') || strings.ContainsRune(s, '\u212a') {
		return true
	}
	digits := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
			continue
		case c == ':' && digits >= 6:
			return true
		}
		digits = 0
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		switch c {
		case 'k', 't', 's', 'p', 'a', 'b', 'g', 'x', 'n', '-':
		default:
			continue
		}
		rest := s[i:]
		for _, w := range triggers {
			if len(rest) >= len(w) && strings.EqualFold(rest[:len(w)], w) {
				return true
			}
		}
		if (c == 'g') && len(rest) >= 4 && (rest[1] == 'h' || rest[1] == 'H') && strings.ContainsRune("pousrPOUSR", rune(rest[2])) && rest[3] == '_' {
			return true
		}
	}
	return false
}

// triggers are the literal substrings of mayHoldSecret (lower case).
var triggers = [...]string{
	"key", "token", "secret", "passw", "authorization", "bearer",
	"sk-", "github_pat_", "xox", "xapp-", "gsk_", "aiza", "pplx-", "npm_", "-----begin",
}
