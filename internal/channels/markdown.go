package channels

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Styles of a Markdown span.
const (
	StyleBold   = "bold"
	StyleItalic = "italic"
	StyleStrike = "strike"
	StyleCode   = "code"
)

// Span is a styled range of plain text, in byte offsets.
type Span struct {
	Start, End int
	Style      string
}

// markers are the Markdown markers MarkdownSpans reads, longest first.
var markers = []struct {
	m, style string
	block    bool // may span lines
}{{"```", StyleCode, true}, {"**", StyleBold, false}, {"__", StyleBold, false}, {"~~", StyleStrike, false},
	{"`", StyleCode, false}, {"*", StyleItalic, false}, {"_", StyleItalic, false}}

// MarkdownSpans reads the inline Markdown a model writes (bold, italic,
// strikethrough, code spans and fences, not nested) into plain text and
// the styled ranges of it, for providers whose formatting is not
// Markdown. Unclosed markers stay as text.
func MarkdownSpans(md string) (string, []Span) {
	var b strings.Builder
	var spans []Span
	for i := 0; i < len(md); {
		matched := false
		for _, mk := range markers {
			if !strings.HasPrefix(md[i:], mk.m) {
				continue
			}
			rest := md[i+len(mk.m):]
			j := strings.Index(rest, mk.m)
			if j <= 0 {
				continue
			}
			content := rest[:j]
			if !mk.block && strings.Contains(content, "\n") {
				continue
			}
			if mk.m == "_" || mk.m == "__" {
				// snake_case words are not emphasis
				if r, _ := utf8.DecodeLastRuneInString(md[:i]); i > 0 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
					continue
				}
			}
			if mk.m == "```" {
				// drop the fence's language tag line
				if nl := strings.IndexByte(content, '\n'); nl >= 0 && !strings.ContainsAny(content[:nl], " `") {
					content = content[nl+1:]
				}
				content = strings.TrimSuffix(content, "\n")
			}
			start := b.Len()
			b.WriteString(content)
			spans = append(spans, Span{Start: start, End: b.Len(), Style: mk.style})
			i += len(mk.m) + j + len(mk.m)
			matched = true
			break
		}
		if !matched {
			_, size := utf8.DecodeRuneInString(md[i:])
			b.WriteString(md[i : i+size])
			i += size
		}
	}
	return b.String(), spans
}
