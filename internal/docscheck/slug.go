package docscheck

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

var (
	inlineLink = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	htmlTag    = regexp.MustCompile(`<[^>]+>`)
)

// slug turns a heading's text into its anchor as GitHub does: the text as
// rendered (links become their text, code spans and emphasis lose their
// markers), lowercased, with every character that is not a letter, a digit,
// a space, a hyphen or an underscore removed, and spaces turned into
// hyphens.
func slug(heading string) string {
	t := inlineLink.ReplaceAllString(heading, "$1")
	t = htmlTag.ReplaceAllString(t, "")
	t = strings.NewReplacer("`", "", "*", "").Replace(t)
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(t)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors returns every anchor a document's headings define. A repeated
// slug gets -1, -2, … in order, as on GitHub.
func anchors(headings []string) map[string]bool {
	seen := map[string]int{}
	out := map[string]bool{}
	for _, h := range headings {
		s := slug(h)
		if n := seen[s]; n > 0 {
			out[s+"-"+strconv.Itoa(n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}
