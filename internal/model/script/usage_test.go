package script

import (
	"fmt"
	"testing"
	"unicode/utf8"

	"github.com/switchboard-go/switchboard/internal/domain"
)

func TestRuneLen(t *testing.T) {
	for _, s := range []string{"", "a", "abcdefg", "abcdefgh", "abcdefghi", "héllo", "abcdefghé", "é" + "abcdefghijklmnop", "日本語のテキスト abcdefgh", "\xff\xfe abcdefgh", "abcdefgh\xff"} {
		if got, want := runeLen(s), utf8.RuneCountInString(s); got != want {
			t.Errorf("runeLen(%q) = %d, want %d", s, got, want)
		}
	}
}

// BenchmarkPromptChars is a 400-message context, the runtime's largest.
func BenchmarkPromptChars(b *testing.B) {
	msgs := make([]domain.Message, 400)
	for i := range msgs {
		msgs[i] = domain.Message{Role: domain.RoleUser, Content: domain.TextContent(fmt.Sprintf("message number %d of the context, a short line", i))}
	}
	req := domain.ModelRequest{System: "you are a test", Messages: msgs}
	b.ReportAllocs()
	for b.Loop() {
		promptChars(req)
	}
}
