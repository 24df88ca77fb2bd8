package redact

import (
	"strings"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// SearchText is the text of m that sessions_search indexes: exactly the
// text sessions_history shows for it — each text block (or the plain
// string content) and the error message, with credentials masked and cut
// to DefaultTextMaxChars — joined by newlines. Thinking blocks, tool-call
// arguments and images are not indexed: they are not the message's text,
// and a search that matched hidden reasoning would surface what a reader
// of the transcript does not see as said. "" means nothing to index.
//
// The index holds this masked text, never the raw one, so neither a match
// nor a snippet can reveal a credential history would mask.
func SearchText(m domain.Message) string { return New().SearchText(m) }

// SearchText is the package function with r's patterns.
func (r Redactor) SearchText(m domain.Message) string {
	var parts []string
	var f flags
	add := func(s string) {
		if strings.TrimSpace(s) == "" {
			return
		}
		parts = append(parts, strings.TrimSuffix(r.sanitizeText(s, DefaultTextMaxChars, &f), TruncationMarker))
	}
	for _, b := range m.Content.Blocks() {
		if b.Type == domain.BlockText {
			add(b.Text)
		}
	}
	add(m.ErrorMessage)
	return strings.Join(parts, "\n")
}
