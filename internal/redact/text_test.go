package redact

import (
	"strings"
	"testing"
)

func TestText(t *testing.T) {
	const long = "abcdefghijklmnopqrstuvwxyz0123" // 30 chars
	tests := []struct {
		name, in, want string
	}{
		{"no secret", "hello world, the key is kindness", "hello world, the key is kindness"},
		{"env assignment", "export OPENAI_API_KEY=" + long, "export OPENAI_API_KEY=abcdef…0123"},
		{"env colon, quoted", `GITHUB_TOKEN: "` + long + `"`, `GITHUB_TOKEN: "abcdef…0123"`},
		{"env short secret", "DB_PASSWORD=hunter2 next", "DB_PASSWORD=*** next"},
		{"env secret suffix", "AWS_SECRET=" + long, "AWS_SECRET=abcdef…0123"},
		{"lower-case query param", "https://x.test/cb?access_token=" + long + "&x=1", "https://x.test/cb?access_token=abcdef…0123&x=1"},
		{"json apiKey", `{"apiKey": "` + long + `"}`, `{"apiKey": "abcdef…0123"}`},
		{"json token", `{"token":"` + long + `"}`, `{"token":"abcdef…0123"}`},
		{"json secret", `{"secret":"` + long + `"}`, `{"secret":"abcdef…0123"}`},
		{"json password short", `{"password":"pw"}`, `{"password":"***"}`},
		{"json accessToken", `{"accessToken":"` + long + `"}`, `{"accessToken":"abcdef…0123"}`},
		{"json refreshToken", `{"refreshToken":"` + long + `"}`, `{"refreshToken":"abcdef…0123"}`},
		{"json other field untouched", `{"name":"` + long + `"}`, `{"name":"` + long + `"}`},
		{"flag --token", "tool --token " + long + " --verbose", "tool --token abcdef…0123 --verbose"},
		{"flag --api-key=", "tool --api-key=" + long, "tool --api-key=abcdef…0123"},
		{"flag --password quoted", "login --password '" + long + "'", "login --password 'abcdef…0123'"},
		{"authorization header", "Authorization: Bearer " + long, "Authorization: Bearer abcdef…0123"},
		{"bare bearer", "curl -H 'x: Bearer " + long + "'", "curl -H 'x: Bearer abcdef…0123'"},
		{"sk- prefix", "key sk-proj-" + long + " end", "key sk-pro…0123 end"},
		{"sk- too short to match", "task sk-abc end", "task sk-abc end"},
		{"sk inside a word is not a key", "task-" + long, "task-" + long},
		{"ghp_", "ghp_" + long, "ghp_ab…0123"},
		{"github_pat_", "github_pat_" + long, "github…0123"},
		{"xoxb-", "xoxb-1234567890-" + long, "xoxb-1…0123"},
		{"xapp-", "xapp-1-" + long, "xapp-1…0123"},
		{"gsk_", "gsk_" + long, "gsk_ab…0123"},
		{"AIza", "AIza" + long, "AIzaab…0123"},
		{"pplx-", "pplx-" + long, "pplx-a…0123"},
		{"npm_", "npm_" + long, "npm_ab…0123"},
		{"telegram bot token", "token 123456789:" + long + "_X", "token 123456…23_X"},
		{"telegram in url", "https://api.telegram.org/bot123456789:" + long + "/getMe", "https://api.telegram.org/bot123456…0123/getMe"},
		{
			"pem block",
			"key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nIBAAK\n-----END RSA PRIVATE KEY-----\nafter",
			"key:\n-----BEGIN RSA PRIVATE KEY-----\n…redacted…\n-----END RSA PRIVATE KEY-----\nafter",
		},
		{
			"unterminated pem block",
			"-----BEGIN PRIVATE KEY-----\nMIIEow\nIBAAK",
			"-----BEGIN PRIVATE KEY-----\n…redacted…\n",
		},
		{"overlapping patterns mask once", "--token=sk-" + long, "--token=sk-abc…0123"},
		{"two secrets", "A_KEY=" + long + " B_TOKEN=short", "A_KEY=abcdef…0123 B_TOKEN=***"},
		{"multibyte secret keeps runes", "X_SECRET=ééééééééééééééééééé", "X_SECRET=éééééé…éééé"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed := Text(tt.in)
			if got != tt.want {
				t.Errorf("Text(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			if changed != (tt.in != tt.want) {
				t.Errorf("changed = %v, want %v", changed, tt.in != tt.want)
			}
		})
	}
}

func TestZeroRedactorMasksNothing(t *testing.T) {
	in := "OPENAI_API_KEY=sk-abcdefghijklmnopqrstuvwxyz"
	if got, changed := (Redactor{}).Text(in); got != in || changed {
		t.Errorf("zero Redactor changed the text: %q", got)
	}
}

func TestMaskLengths(t *testing.T) {
	if got := mask(strings.Repeat("x", 17)); got != "***" {
		t.Errorf("mask(17) = %q, want ***", got)
	}
	if got := mask("abcdef" + strings.Repeat("x", 8) + "wxyz"); got != "abcdef…wxyz" {
		t.Errorf("mask(18) = %q", got)
	}
}
