package telegram

import (
	"html"
	"regexp"
	"strings"
	"unicode/utf16"
)

// maxMessageUnits is Telegram's limit of one message's text, in UTF-16
// code units.
const maxMessageUnits = 4096

var (
	mdFence  = regexp.MustCompile("(?s)```[a-zA-Z0-9_+-]*\n?(.*?)```")
	mdCode   = regexp.MustCompile("`([^`\n]+)`")
	mdBold   = regexp.MustCompile(`\*\*([^*\n]+)\*\*|__([^_\n]+)__`)
	mdItalic = regexp.MustCompile(`(^|[^\w*])\*([^*\n]+)\*|(^|[^\w_])_([^_\n]+)_`)
	mdStrike = regexp.MustCompile(`~~([^~\n]+)~~`)
	mdLink   = regexp.MustCompile(`\[([^\]\n]+)\]\((https?://[^)\s]+)\)`)
	mdHead   = regexp.MustCompile(`(?m)^#{1,6}\s+(.+)$`)
)

// toHTML turns the Markdown a model writes into Telegram's HTML parse
// mode: code blocks and spans, bold, italic, strikethrough, links and
// headings (bold); everything else is escaped text.
func toHTML(md string) string {
	var keep []string
	stash := func(s string) string {
		keep = append(keep, s)
		return "\x00" + string(rune('0'+len(keep)-1)) + "\x00"
	}
	s := mdFence.ReplaceAllStringFunc(md, func(m string) string {
		inner := mdFence.FindStringSubmatch(m)[1]
		return stash("<pre>" + html.EscapeString(strings.TrimRight(inner, "\n")) + "</pre>")
	})
	s = mdCode.ReplaceAllStringFunc(s, func(m string) string {
		return stash("<code>" + html.EscapeString(mdCode.FindStringSubmatch(m)[1]) + "</code>")
	})
	if len(keep) > 9 {
		// Too many code pieces for the one-digit placeholders: send them
		// as escaped text instead of risking a wrong substitution.
		return html.EscapeString(md)
	}
	s = html.EscapeString(s)
	s = mdLink.ReplaceAllString(s, `<a href="$2">$1</a>`)
	s = mdHead.ReplaceAllString(s, "<b>$1</b>")
	s = mdBold.ReplaceAllString(s, "<b>$1$2</b>")
	s = mdStrike.ReplaceAllString(s, "<s>$1</s>")
	s = mdItalic.ReplaceAllString(s, "$1$3<i>$2$4</i>")
	for i, k := range keep {
		s = strings.Replace(s, "\x00"+string(rune('0'+i))+"\x00", k, 1)
	}
	return s
}

// units is the length of s in UTF-16 code units.
func units(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// split cuts text into pieces of at most limit UTF-16 units, preferring
// a paragraph break, then a line break, then a space, and never cutting a
// surrogate pair.
func split(text string, limit int) []string {
	if limit <= 0 || limit > maxMessageUnits {
		limit = maxMessageUnits
	}
	var out []string
	for units(text) > limit {
		cut, n := 0, 0
		lastPara, lastLine, lastSpace := -1, -1, -1
		for i, r := range text {
			w := utf16.RuneLen(r)
			if n+w > limit {
				break
			}
			n += w
			cut = i + len(string(r))
			switch {
			case r == '\n' && i > 0 && text[i-1] == '\n':
				lastPara = cut
			case r == '\n':
				lastLine = cut
			case r == ' ':
				lastSpace = cut
			}
		}
		at := cut
		for _, c := range []int{lastPara, lastLine, lastSpace} {
			if c > limit/2 {
				at = c
				break
			}
		}
		if at <= 0 {
			at = cut
		}
		if piece := strings.TrimRight(text[:at], " \n"); piece != "" {
			out = append(out, piece)
		}
		text = strings.TrimLeft(text[at:], " \n")
	}
	if strings.TrimSpace(text) != "" || len(out) == 0 {
		out = append(out, text)
	}
	return out
}
