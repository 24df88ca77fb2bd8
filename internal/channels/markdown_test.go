package channels

import (
	"reflect"
	"testing"
)

func TestMarkdownSpans(t *testing.T) {
	for _, tt := range []struct {
		in, plain string
		spans     []Span
	}{
		{"plain", "plain", nil},
		{"a **b** c", "a b c", []Span{{2, 3, StyleBold}}},
		{"*i* and `x`", "i and x", []Span{{0, 1, StyleItalic}, {6, 7, StyleCode}}},
		{"~~gone~~", "gone", []Span{{0, 4, StyleStrike}}},
		{"snake_case_name", "snake_case_name", nil},
		{"```go\nfmt.Println()\n```", "fmt.Println()", []Span{{0, 13, StyleCode}}},
		{"unclosed *star", "unclosed *star", nil},
		{"*not\nacross*", "*not\nacross*", nil},
		{"é **ü**", "é ü", []Span{{3, 5, StyleBold}}},
	} {
		plain, spans := MarkdownSpans(tt.in)
		if plain != tt.plain || !reflect.DeepEqual(spans, tt.spans) {
			t.Errorf("MarkdownSpans(%q) = %q %v, want %q %v", tt.in, plain, spans, tt.plain, tt.spans)
		}
	}
}
