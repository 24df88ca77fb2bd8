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

// wordsCI are the words of fWordCI, lower case.
var wordsCI = [...]string{"key", "token", "secret", "passw"}

// prefixes are the token prefixes of fPrefix (case-sensitive, as prefixRe).
var prefixes = [...]string{"sk-", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xox", "xapp-", "gsk_", "AIza", "pplx-", "npm_"}

// scan finds the features of s in one pass.
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
		rest := s[i:]
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
			if strings.HasPrefix(rest, "--") {
				f |= fDashDash
			}
			if strings.HasPrefix(rest, "-----BEGIN ") {
				f |= fPEM
			}
			continue
		}
		lc := c | 0x20 // ASCII lower case (only compared with letters below)
		switch lc {
		case 'k', 't', 's', 'p':
			for _, w := range wordsCI {
				if len(rest) >= len(w) && strings.EqualFold(rest[:len(w)], w) {
					f |= fWordCI
					if strings.ToUpper(w) == rest[:len(w)] {
						f |= fWordUpper
					}
				}
			}
		case 'a':
			if len(rest) >= 13 && strings.EqualFold(rest[:13], "authorization") {
				f |= fAuthorization
			}
		case 'b':
			if len(rest) >= 6 && strings.EqualFold(rest[:6], "bearer") {
				f |= fBearer
			}
		}
		switch c {
		case 's', 'g', 'x', 'A', 'p', 'n':
			for _, p := range prefixes {
				if strings.HasPrefix(rest, p) {
					f |= fPrefix
				}
			}
		}
	}
	return f
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
