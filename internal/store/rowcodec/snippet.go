package rowcodec

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// snippetTokens is how many words a snippet holds; snippetBefore of them
// come before the first match.
const (
	snippetTokens = 24
	snippetBefore = 6
)

// snippet cuts text (a message's indexed, masked text) to about
// snippetTokens words around the first word that matches one of words,
// with "…" where it was cut. Matching is case-insensitive and ignores
// diacritics on Latin letters, like the index; when nothing matches (a
// word only the tokenizer folded), the snippet is the text's start.
func snippet(text string, words []string) string {
	type span struct{ start, end int }
	var toks []span
	start := -1
	for i, r := range text {
		if unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			toks = append(toks, span{start, i})
			start = -1
		}
	}
	if start >= 0 {
		toks = append(toks, span{start, len(text)})
	}
	if len(toks) == 0 {
		return strings.TrimSpace(text)
	}
	hit := 0
find:
	for i, t := range toks {
		tok := fold(text[t.start:t.end])
		for _, w := range words {
			if tok == fold(w) {
				hit = i
				break find
			}
		}
	}
	first := max(0, hit-snippetBefore)
	last := min(len(toks), first+snippetTokens) - 1
	if last-first+1 < snippetTokens {
		first = max(0, last+1-snippetTokens)
	}
	// Uncut ends keep the text's own punctuation ("status?").
	from, to := 0, len(text)
	if first > 0 {
		from = toks[first].start
	}
	if last < len(toks)-1 {
		to = toks[last].end
	}
	out := strings.TrimSpace(text[from:to])
	if first > 0 {
		out = "…" + out
	}
	if last < len(toks)-1 {
		out += "…"
	}
	return out
}

// fold lowercases s and drops the diacritics of Latin letters (é → e),
// enough to find the word the index matched.
func fold(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		if base, ok := latinBase[r]; ok {
			r = base
		}
		b.WriteRune(r)
	}
	return b.String()
}

// latinBase maps accented Latin-1 and Latin Extended-A lower-case letters
// to their base letter.
var latinBase = func() map[rune]rune {
	m := map[rune]rune{}
	add := func(base rune, accented string) {
		for len(accented) > 0 {
			r, n := utf8.DecodeRuneInString(accented)
			m[r] = base
			accented = accented[n:]
		}
	}
	add('a', "àáâãäåāăą")
	add('c', "çćĉċč")
	add('d', "ď")
	add('e', "èéêëēĕėęě")
	add('g', "ĝğġģ")
	add('h', "ĥ")
	add('i', "ìíîïĩīĭįı")
	add('j', "ĵ")
	add('k', "ķ")
	add('l', "ĺļľŀł")
	add('n', "ñńņňŉ")
	add('o', "òóôõöøōŏő")
	add('r', "ŕŗř")
	add('s', "śŝşš")
	add('t', "ţťŧ")
	add('u', "ùúûüũūŭůűų")
	add('w', "ŵ")
	add('y', "ýÿŷ")
	add('z', "źżž")
	return m
}()

// Snippet is snippet for other stores (the PostgreSQL store cuts its
// snippets the same way).
func Snippet(text string, words []string) string { return snippet(text, words) }
