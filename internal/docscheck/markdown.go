package docscheck

import (
	"regexp"
	"strings"
)

// link is one inline link or image of a document.
type link struct {
	line   int // 1-based
	target string
}

// block is one fenced code block.
type block struct {
	line  int    // 1-based line of the opening fence
	info  string // the info string after the fence, trimmed
	lines []string
}

// doc is what the checks need of a Markdown document.
type doc struct {
	headings []string
	links    []link
	blocks   []block
}

var (
	atxHeading = regexp.MustCompile(`^ {0,3}#{1,6}[ \t]+(.*?)[ \t]*#*[ \t]*$`)
	linkTarget = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)`)
	codeSpan   = regexp.MustCompile("`+[^`]*`+")
)

// parse reads the headings, links and fenced blocks of a Markdown text.
// Links inside code spans and fenced blocks are not links.
func parse(text string) doc {
	var d doc
	var open *block
	var fence string
	for i, ln := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(ln, " ")
		if open != nil {
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]+" \t") == "" {
				d.blocks = append(d.blocks, *open)
				open = nil
				continue
			}
			open.lines = append(open.lines, ln)
			continue
		}
		if f := fenceOf(trimmed); f != "" {
			fence = f
			open = &block{line: i + 1, info: strings.TrimSpace(strings.TrimLeft(trimmed, f[:1]))}
			continue
		}
		if m := atxHeading.FindStringSubmatch(ln); m != nil {
			d.headings = append(d.headings, m[1])
		}
		for _, m := range linkTarget.FindAllStringSubmatch(codeSpan.ReplaceAllString(ln, ""), -1) {
			d.links = append(d.links, link{line: i + 1, target: m[1]})
		}
	}
	return d
}

// fenceOf returns the fence a line opens (three or more backticks or
// tildes), or "".
func fenceOf(line string) string {
	for _, c := range []string{"`", "~"} {
		n := len(line) - len(strings.TrimLeft(line, c))
		if n >= 3 {
			return strings.Repeat(c, n)
		}
	}
	return ""
}
