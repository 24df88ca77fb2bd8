package script

import (
	"unicode/utf8"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// promptChars counts the characters (runes) the model "reads": the system
// prompt, every text block and every tool call's arguments JSON.
//
// It walks the whole context on every turn, so it indexes rather than
// ranging by value: a Message and a Block are a few hundred bytes each, and
// copying them was most of this function's cost.
func promptChars(req domain.ModelRequest) int {
	n := runeLen(req.System)
	for i := range req.Messages {
		blocks := req.Messages[i].Content.Blocks()
		for j := range blocks {
			b := &blocks[j]
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

// runeLen is utf8.RuneCountInString with a fast path for ASCII, which is
// most of a transcript: eight bytes at a time while none has its high bit set.
func runeLen(s string) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if w&0x8080808080808080 != 0 {
			break
		}
	}
	return i + utf8.RuneCountInString(s[i:])
}

// ceilDiv4 is the token estimate of n characters: ceil(n / 4).
func ceilDiv4(n int) int64 { return int64((n + 3) / 4) }
