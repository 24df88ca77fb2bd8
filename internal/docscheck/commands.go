package docscheck

import "strings"

// illustrative marks a block (in its info string) or a line (in its trailing
// comment) whose commands the check does not run.
const illustrative = "illustrative"

// command is one shell command shown in a fenced sh block.
type command struct {
	line int // 1-based line in the document
	text string
}

// shCommands returns the commands of a document's fenced sh blocks that the
// check runs: not in an illustrative block, not on an illustrative line,
// without their trailing comments. Building the binary is left out (the
// check builds it once), and `go run ./cmd/switchboard` becomes the built
// `./switchboard`.
func shCommands(d doc) []command {
	var out []command
	for _, b := range d.blocks {
		words := strings.Fields(b.info)
		if len(words) == 0 || words[0] != "sh" || strings.Contains(b.info, illustrative) {
			continue
		}
		for i, ln := range b.lines {
			code, comment := splitComment(ln)
			code = strings.TrimSpace(code)
			if code == "" || strings.Contains(comment, "("+illustrative+")") {
				continue
			}
			if strings.HasPrefix(code, "go build") && strings.Contains(code, "./cmd/switchboard") {
				continue
			}
			if rest, ok := strings.CutPrefix(code, "go run ./cmd/switchboard"); ok {
				code = "./switchboard" + rest
			}
			out = append(out, command{line: b.line + 1 + i, text: code})
		}
	}
	return out
}

// splitComment splits a shell line at its comment: a # at the start or
// after a space, outside quotes.
func splitComment(line string) (code, comment string) {
	var quote rune
	for i, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			return line[:i], line[i:]
		}
	}
	return line, ""
}
