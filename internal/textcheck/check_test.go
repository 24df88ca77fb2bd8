package textcheck

import (
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" when accepted
	}{
		{"research notes", ""},
		{"Заметки — 日本語 ✓", ""},
		{"a\x00b", "invalid label: contains a control character (U+0000)"},
		{"tab\there", "invalid label: contains a control character (U+0009)"},
		{"line\nbreak", "invalid label: contains a control character (U+000A)"},
		{"del\x7f", "invalid label: contains a control character (U+007F)"},
		{"c1\u0085", "invalid label: contains a control character (U+0085)"},
		{"c1\u009b[31m", "invalid label: contains a control character (U+009B)"},
		{"evil\u202egnp.exe", "invalid label: contains a bidirectional-formatting character (U+202E)"},
		{"\u202aembed", "invalid label: contains a bidirectional-formatting character (U+202A)"},
		{"iso\u2066late", "invalid label: contains a bidirectional-formatting character (U+2066)"},
		{"pdi\u2069", "invalid label: contains a bidirectional-formatting character (U+2069)"},
		{"mark\u200f", "invalid label: contains a bidirectional-formatting character (U+200F)"},
		{"bad\xffutf8", "invalid label: not valid UTF-8"},
	}
	for _, tt := range tests {
		err := Check("label", tt.in)
		if tt.want == "" {
			if err != nil {
				t.Errorf("Check(%q) = %v, want nil", tt.in, err)
			}
			continue
		}
		if domain.ErrorCode(err) != domain.CodeInvalid || domain.ErrorMessage(err) != tt.want {
			t.Errorf("Check(%q) = %v, want invalid %q", tt.in, err, tt.want)
		}
	}
}

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"plain":         "plain",
		"a\x00b\n":      `a\x00b\x0a`,
		"x\u202ey":      `x\u202ey`,
		"bad\xff":       `bad\xff`,
		"c1\u0085 done": `c1\x85 done`,
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}
