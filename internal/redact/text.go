package redact

import (
	"regexp"
	"slices"
	"strings"
)

// Credential patterns. Each secret is the submatch named by the rule's
// group (0 = the whole match). They are compiled once and never mutated.
var (
	// API_KEY=…, GITHUB_TOKEN: …, DB_PASSWORD="…" (upper-case env names).
	envAssignRe = regexp.MustCompile(`\b[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD)\b\s*[=:]\s*["']?([^\s"'\\]+)`)
	// api_key=…, access_token=… in any case (query strings, lower-case env).
	assignRe = regexp.MustCompile(`(?i)\b[a-z0-9_.-]*(?:api[_-]?key|token|secret|password|passwd)\s*=\s*["']?([^\s"'\\&]+)`)
	// "apiKey": "…" and friends in JSON.
	jsonFieldRe = regexp.MustCompile(`(?i)"(?:api[_-]?key|token|secret|password|passwd|access[_-]?token|refresh[_-]?token|client[_-]?secret)"\s*:\s*"([^"\\]+)"`)
	// --token …, --api-key=…, --password '…'.
	flagRe = regexp.MustCompile(`(?i)--(?:api[-_]?key|token|password|passwd|secret)(?:\s+|=)["']?([^\s"']+)`)
	// Authorization: Bearer …, and long bare bearer tokens.
	authHeaderRe = regexp.MustCompile(`(?i)\bauthorization\s*[:=]\s*["']?(?:bearer|basic|token)\s+([A-Za-z0-9._~+/=-]+)`)
	bearerRe     = regexp.MustCompile(`(?i)\bbearer\s+([A-Za-z0-9._~+/=-]{16,})`)
	// Well-known token prefixes: OpenAI/Anthropic sk-, GitHub ghp_ (and
	// gho_/ghu_/ghs_/ghr_), github_pat_, Slack xox?- and xapp-, Groq gsk_,
	// Google AIza, Perplexity pplx-, npm npm_.
	prefixRe = regexp.MustCompile(`\b(?:sk-[A-Za-z0-9_-]{8,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|xox[A-Za-z]-[A-Za-z0-9-]{10,}|xapp-[A-Za-z0-9-]{10,}|gsk_[A-Za-z0-9_-]{10,}|AIza[0-9A-Za-z_-]{20,}|pplx-[A-Za-z0-9_-]{10,}|npm_[A-Za-z0-9]{10,})`)
	// Telegram bot tokens, also inside api.telegram.org/bot<token>/ URLs.
	telegramRe = regexp.MustCompile(`(?:\b|bot)(\d{6,}:[A-Za-z0-9_-]{30,})`)
	// PEM private keys; an unterminated block is masked to the end.
	pemRe = regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----([\s\S]*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\z)`)
)

// pemMask replaces the body of a private key block.
const pemMask = "\n…redacted…\n"

// minVisibleLen is the shortest secret shown partially; shorter ones are
// masked whole, since 10 visible characters would reveal too much of them.
const minVisibleLen = 18

type rule struct {
	re    *regexp.Regexp
	group int
	pem   bool
	// need, when set, rules the regexp out for texts without the features
	// it needs (prefilter.go).
	need func(features) bool
}

// Redactor masks credentials in text. The zero value masks nothing; use New.
type Redactor struct {
	rules []rule
}

// New returns a Redactor with switchboard's credential patterns.
func New() Redactor {
	return Redactor{rules: []rule{
		{re: pemRe, group: 1, pem: true, need: needPEM},
		{re: envAssignRe, group: 1, need: needEnv},
		{re: assignRe, group: 1, need: needAssign},
		{re: jsonFieldRe, group: 1, need: needJSON},
		{re: flagRe, group: 1, need: needFlag},
		{re: authHeaderRe, group: 1, need: needAuth},
		{re: bearerRe, group: 1, need: needBearer},
		{re: prefixRe, group: 0, need: needPrefix},
		{re: telegramRe, group: 1, need: needTelegram},
	}}
}

// Text masks credentials in s with New's patterns; see Redactor.Text.
func Text(s string) (string, bool) { return New().Text(s) }

// span is a byte range of s to mask.
type span struct {
	start, end int
	pem        bool
}

// Text returns s with every credential masked, and whether anything was.
// A secret of at least 18 characters keeps its first 6 and last 4
// ("sk-abc…wxyz") so people can tell keys apart; shorter ones become "***";
// the body of a PEM private key block becomes "…redacted…". All patterns
// are matched against the original text and overlapping matches are merged,
// so a secret is never masked twice.
func (r Redactor) Text(s string) (string, bool) {
	var spans []span
	var f features
	scanned := false
	for _, ru := range r.rules {
		if ru.need != nil {
			if !scanned {
				f, scanned = scan(s), true
			}
			if !ru.need(f) {
				continue
			}
		}
		for _, m := range ru.re.FindAllStringSubmatchIndex(s, -1) {
			start, end := m[2*ru.group], m[2*ru.group+1]
			if start < 0 || start == end {
				continue
			}
			spans = append(spans, span{start, end, ru.pem})
		}
	}
	if len(spans) == 0 {
		return s, false
	}
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	merged := spans[:1]
	for _, sp := range spans[1:] {
		last := &merged[len(merged)-1]
		if sp.start < last.end {
			last.end = max(last.end, sp.end)
			last.pem = last.pem || sp.pem
			continue
		}
		merged = append(merged, sp)
	}
	var b strings.Builder
	b.Grow(len(s))
	prev := 0
	for _, sp := range merged {
		b.WriteString(s[prev:sp.start])
		if sp.pem {
			b.WriteString(pemMask)
		} else {
			b.WriteString(mask(s[sp.start:sp.end]))
		}
		prev = sp.end
	}
	b.WriteString(s[prev:])
	return b.String(), true
}

// mask hides a secret, keeping its first 6 and last 4 characters when it is
// long enough for that to reveal little.
func mask(secret string) string {
	r := []rune(secret)
	if len(r) < minVisibleLen {
		return "***"
	}
	return string(r[:6]) + "…" + string(r[len(r)-4:])
}
