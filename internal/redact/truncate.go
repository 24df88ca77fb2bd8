package redact

import (
	"unicode/utf8"

	"github.com/switchboard-go/switchboard/internal/domain"
)

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

// CutTexts returns msgs with every text field (string content, text and
// thinking blocks, errorMessage) cut to maxChars UTF-16 units plus
// TruncationMarker, and nothing else changed: no masking (chat.history's
// maxChars on the operator's raw transcript). Messages with nothing to cut
// are returned as they are; msgs itself is not modified.
func CutTexts(msgs []domain.Message, maxChars int) []domain.Message {
	if maxChars <= 0 {
		return msgs
	}
	cut := func(s string) (string, bool) {
		kept, c := utf16Prefix(s, maxChars)
		if !c {
			return s, false
		}
		return kept + TruncationMarker, true
	}
	var out []domain.Message
	for i, m := range msgs {
		changed := false
		n := m
		if t, c := cut(m.ErrorMessage); c {
			n.ErrorMessage, changed = t, true
		}
		if m.Content.IsPlain() {
			if t, c := cut(m.Content.Text()); c {
				n.Content, changed = domain.TextContent(t), true
			}
		} else if src := m.Content.Blocks(); src != nil {
			var blocks []domain.Block
			for j, b := range src {
				t, c1 := cut(b.Text)
				th, c2 := cut(b.Thinking)
				if !c1 && !c2 {
					continue
				}
				if blocks == nil {
					blocks = append([]domain.Block(nil), src...)
				}
				blocks[j].Text, blocks[j].Thinking = t, th
			}
			if blocks != nil {
				n.Content, changed = domain.BlockContent(blocks...), true
			}
		}
		if !changed {
			continue
		}
		if out == nil {
			out = append([]domain.Message(nil), msgs...)
		}
		out[i] = n
	}
	if out == nil {
		return msgs
	}
	return out
}
