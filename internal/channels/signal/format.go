package signal

import (
	"strconv"
	"unicode/utf16"

	"github.com/switchboard-go/switchboard/internal/channels"
)

// signalStyles are signal-cli's text style names.
var signalStyles = map[string]string{channels.StyleBold: "BOLD", channels.StyleItalic: "ITALIC",
	channels.StyleStrike: "STRIKETHROUGH", channels.StyleCode: "MONOSPACE"}

// textStyles turns Markdown into Signal's formatting: the plain text and
// signal-cli's `textStyle` ranges ("start:length:STYLE", in UTF-16
// units, as Signal counts).
func textStyles(md string) (string, []string) {
	plain, spans := channels.MarkdownSpans(md)
	var out []string
	for _, s := range spans {
		start := utf16Len(plain[:s.Start])
		n := utf16Len(plain[s.Start:s.End])
		if n == 0 {
			continue
		}
		out = append(out, strconv.Itoa(start)+":"+strconv.Itoa(n)+":"+signalStyles[s.Style])
	}
	return plain, out
}

func utf16Len(s string) int { return len(utf16.Encode([]rune(s))) }
