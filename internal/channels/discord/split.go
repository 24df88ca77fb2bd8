package discord

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxMessageChars is Discord's limit on a message's content. Discord
// counts characters; this package counts UTF-16 units, which is never
// fewer, so a chunk it makes is never refused for length.
const MaxMessageChars = 2000

const fence = "```"

// maxFenceLang bounds the language tag carried to a reopened block.
const maxFenceLang = 32

// splitText cuts text into chunks of at most limit UTF-16 units: at the
// last line break that fits, else the last space, else at a character
// boundary. A chunk that ends inside a ``` code block closes it and the
// next chunk reopens it, so each message renders on its own. Markdown is
// otherwise left as it is: Discord renders it.
func splitText(text string, limit int) []string {
	// A reopened block's fence line (up to 4+maxFenceLang units) and the
	// closing fence must leave room for text.
	limit = max(limit, 64)
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	var out []string
	reopen := "" // the fence line to reopen a block cut in two
	for text != "" {
		budget := limit - units(reopen)
		if units(text) <= budget {
			out = append(out, reopen+text)
			break
		}
		// Leave room to close a block the cut may leave open.
		cut := cutPoint(text, budget-len("\n"+fence))
		chunk := strings.TrimRight(text[:cut], " \n")
		rest := strings.TrimLeft(text[cut:], " \n")
		if chunk == "" { // only whitespace fitted: force progress
			chunk, rest = text[:cut], text[cut:]
		}
		full := reopen + chunk
		next := ""
		if open, lang := openFence(full); open {
			full += "\n" + fence
			next = fence + lang + "\n"
		}
		out = append(out, full)
		text, reopen = rest, next
	}
	return out
}

// cutPoint is the byte index to cut text at so that text[:i] has at most
// budget UTF-16 units, preferring a line break, then a space.
func cutPoint(text string, budget int) int {
	budget = max(budget, 1)
	n, end := 0, 0
	for i, r := range text {
		w := utf16.RuneLen(r)
		if w < 0 {
			w = 1
		}
		if n+w > budget {
			break
		}
		n += w
		end = i + utf8.RuneLen(r)
		if r == utf8.RuneError {
			end = i + 1
		}
	}
	if end == 0 { // a character wider than the budget: cut after it
		_, size := utf8.DecodeRuneInString(text)
		return size
	}
	head := text[:end]
	if i := strings.LastIndexByte(head, '\n'); i > end/2 {
		return i + 1
	}
	if i := strings.LastIndexByte(head, ' '); i > end/2 {
		return i + 1
	}
	return end
}

// openFence reports whether s ends inside a ``` block, and the language
// tag of the block's opening line.
func openFence(s string) (bool, string) {
	open, lang := false, ""
	for line := range strings.SplitSeq(s, "\n") {
		t := strings.TrimSpace(line)
		if !strings.HasPrefix(t, fence) {
			continue
		}
		if open {
			open, lang = false, ""
			continue
		}
		open, lang = true, strings.TrimSpace(strings.TrimPrefix(t, fence))
		if strings.Contains(lang, fence) { // ```inline``` on one line
			open, lang = false, ""
		}
		if len(lang) > maxFenceLang { // not a language tag; reopen bare
			lang = ""
		}
	}
	return open, lang
}

// units is the length of s in UTF-16 units.
func units(s string) int {
	n := 0
	for _, r := range s {
		w := utf16.RuneLen(r)
		if w < 0 {
			w = 1
		}
		n += w
	}
	return n
}
