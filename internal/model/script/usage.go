package script

import (
	"unicode/utf8"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// promptChars counts the characters (runes) the model "reads": the system
// prompt, every text block and every tool call's arguments JSON.
func promptChars(req domain.ModelRequest) int {
	n := runeLen(req.System)
	for _, m := range req.Messages {
		for _, b := range m.Content.Blocks() {
			switch b.Type {
			case domain.BlockText:
				n += runeLen(b.Text)
			case domain.BlockToolCall:
				n += utf8.RuneCount(b.Arguments)
			}
		}
	}
	return n
}

func runeLen(s string) int { return utf8.RuneCountInString(s) }

// ceilDiv4 is the token estimate of n characters: ceil(n / 4).
func ceilDiv4(n int) int64 { return int64((n + 3) / 4) }
