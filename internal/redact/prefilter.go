package redact

import "strings"

// features are what one pass over a text finds that New's patterns need.
// Each rule names the features it cannot match without (rule.need), so
// only the regexps that could match run: most transcript text (and every
// message sessions_search indexes) needs none, and the regexps'
// backtracking was most of the cost of indexing a message.
type features uint16

const (
	// fWordCI: key, token, secret or passw in any case (the assignment,
	// JSON-field and flag patterns); fWordUpper: KEY, TOKEN, SECRET or
	// PASSW in upper case (the env pattern).
	fWordCI features = 1 << iota
	fWordUpper
	fAuthorization // "authorization", any case
	fBearer        // "bearer", any case
	fPrefix        // a token prefix: sk-, gh[pousr]_, github_pat_, xox, xapp-, gsk_, AIza, pplx-, npm_
	fPEM           // "-----BEGIN "
	fTelegram      // six digits then a colon
	fEquals        // '='
	fColon         // ':'
	fQuote         // '"'
	fDashDash      // "--"
	// fFold: a non-ASCII rune that case-folds to an ASCII letter (U+017F
	// to s, U+212A, the Kelvin sign, to k); the case-insensitive patterns
	// then run whatever else the text holds.
	fFold
)

// scan finds the features of s in one pass. It looks at each byte once
// and compares further only where a feature's word could start, by its
// first byte: it runs on every message the search index stores, so it is
// part of every chat turn's and every imported message's cost.
//
// The words compare in ASCII case only: a non-ASCII rune that case-folds
// to an ASCII letter is longer in bytes than the letter, so it can never
// fold a word of the same byte length; fFold stands in for those.
func scan(s string) features {
	var f features
	if strings.ContainsRune(s, 'ſ') || strings.ContainsRune(s, '\u212a') {
		f |= fFold
	}
	digits := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' {
			digits++
			continue
		}
		if c == ':' && digits >= 6 {
			f |= fTelegram
		}
		digits = 0
		switch c {
		case '=':
			f |= fEquals
			continue
		case ':':
			f |= fColon
			continue
		case '"':
			f |= fQuote
			continue
		case '-':
			rest := s[i:]
			if strings.HasPrefix(rest, "--") {
				f |= fDashDash
				if strings.HasPrefix(rest, "-----BEGIN ") {
					f |= fPEM
				}
			}
			continue
		}
		if c < 'A' || c > 'z' {
			continue
		}
		rest := s[i:]
		switch c | 0x20 { // ASCII lower case of a letter
		case 'k':
			f |= word(rest, "key", "KEY")
		case 't':
			f |= word(rest, "token", "TOKEN")
		case 's':
			f |= word(rest, "secret", "SECRET")
			if strings.HasPrefix(rest, "sk-") {
				f |= fPrefix
			}
		case 'p':
			f |= word(rest, "passw", "PASSW")
			if strings.HasPrefix(rest, "pplx-") {
				f |= fPrefix
			}
		case 'a':
			if hasPrefixFold(rest, "authorization") {
				f |= fAuthorization
			}
			if strings.HasPrefix(rest, "AIza") {
				f |= fPrefix
			}
		case 'b':
			if hasPrefixFold(rest, "bearer") {
				f |= fBearer
			}
		case 'g':
			if githubPrefix(rest) || strings.HasPrefix(rest, "gsk_") {
				f |= fPrefix
			}
		case 'x':
			if strings.HasPrefix(rest, "xox") || strings.HasPrefix(rest, "xapp-") {
				f |= fPrefix
			}
		case 'n':
			if strings.HasPrefix(rest, "npm_") {
				f |= fPrefix
			}
		}
	}
	return f
}

// word is fWordCI when s starts with lower (a lower-case ASCII word) in
// any ASCII case, and fWordUpper as well when it starts with upper.
func word(s, lower, upper string) features {
	if !hasPrefixFold(s, lower) {
		return 0
	}
	if strings.HasPrefix(s, upper) {
		return fWordCI | fWordUpper
	}
	return fWordCI
}

// hasPrefixFold reports whether s starts with lower, a lower-case ASCII
// word, in any ASCII case.
func hasPrefixFold(s, lower string) bool {
	if len(s) < len(lower) {
		return false
	}
	for i := 0; i < len(lower); i++ {
		if s[i]|0x20 != lower[i] {
			return false
		}
	}
	return true
}

// githubPrefix reports whether s starts with a GitHub token prefix:
// gh[pousr]_ or github_pat_ (case-sensitive, as prefixRe).
func githubPrefix(s string) bool {
	if len(s) >= 4 && s[1] == 'h' && s[3] == '_' && strings.IndexByte("pousr", s[2]) >= 0 {
		return s[0] == 'g'
	}
	return strings.HasPrefix(s, "github_pat_")
}

// Each rule's need: the features without which its regexp cannot match.
func needPEM(f features) bool      { return f&fPEM != 0 }
func needEnv(f features) bool      { return f&fWordUpper != 0 && f&(fEquals|fColon) != 0 }
func needAssign(f features) bool   { return f&(fWordCI|fFold) != 0 && f&fEquals != 0 }
func needJSON(f features) bool     { return f&(fWordCI|fFold) != 0 && f&fQuote != 0 }
func needFlag(f features) bool     { return f&(fWordCI|fFold) != 0 && f&fDashDash != 0 }
func needAuth(f features) bool     { return f&(fAuthorization|fFold) != 0 }
func needBearer(f features) bool   { return f&(fBearer|fFold) != 0 }
func needPrefix(f features) bool   { return f&fPrefix != 0 }
func needTelegram(f features) bool { return f&fTelegram != 0 }
