package config

import (
	"strings"
	"testing"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestExpandEnv(t *testing.T) {
	getenv := env(map[string]string{"KEY": "sk-123", "A": "x", "B_2": "y", "DOLLAR": "$HOME ${NOT}"})
	tests := []struct {
		in, want, wantErr string
	}{
		{in: "plain", want: "plain"},
		{in: "${KEY}", want: "sk-123"},
		{in: "Bearer ${KEY}!", want: "Bearer sk-123!"},
		{in: "${A}${B_2}", want: "xy"},
		{in: "$${KEY}", want: "${KEY}"},
		{in: "$$${KEY}", want: "$${KEY}"}, // left to right: "$", then the escape
		{in: "$1 and $ and $KEY and {KEY}", want: "$1 and $ and $KEY and {KEY}"},
		{in: "${DOLLAR}", want: "$HOME ${NOT}"}, // values are not expanded again
		{in: "${MISSING}", wantErr: "environment variable MISSING is not set"},
		{in: "${KEY", wantErr: "unterminated ${"},
		{in: "${}", wantErr: `invalid environment variable name ""`},
		{in: "${1A}", wantErr: `invalid environment variable name "1A"`},
		{in: "${A-B}", wantErr: `invalid environment variable name "A-B"`},
	}
	for _, tt := range tests {
		got, err := expandEnv(tt.in, getenv)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("expandEnv(%q) = %q, %v; want error %q", tt.in, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("expandEnv(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestParseEnv(t *testing.T) {
	in := `{
		models: {providers: {
			openai: {apiKey: "${OPENAI_API_KEY}"},
			local: {api: "openai", baseUrl: "http://${LLM_HOST}/v1", apiKey: "${LOCAL_KEY}"},
			script: {rules: [{toolCall: {name: "x", arguments: {deep: ["${ARG}", "$${ARG}"]}}}]},
		}},
		gateway: {auth: {token: "${TOKEN}"}},
	}`
	cfg, err := Parse([]byte(in), env(map[string]string{
		"OPENAI_API_KEY": "sk-live", "LLM_HOST": "127.0.0.1:11434", "LOCAL_KEY": "lk", "ARG": "v", "TOKEN": "tok",
	}))
	if err != nil {
		t.Fatal(err)
	}
	p := cfg.Models.Providers
	if p["openai"].APIKey != "sk-live" || p["local"].BaseURL != "http://127.0.0.1:11434/v1" || p["local"].APIKey != "lk" || cfg.Gateway.Auth.Token != "tok" {
		t.Errorf("not substituted: %+v %+v %q", p["openai"], p["local"], cfg.Gateway.Auth.Token)
	}
	deep := p["script"].Rules[0].ToolCall.Arguments["deep"].([]any)
	if deep[0] != "v" || deep[1] != "${ARG}" {
		t.Errorf("arguments = %v", deep)
	}

	// Every unset variable is reported at its key path, and a value that
	// failed to expand is not reported again by validation (baseUrl).
	got := parseProblems(t, in, env(map[string]string{"OPENAI_API_KEY": "sk"}))
	want := []string{
		"gateway.auth.token: environment variable TOKEN is not set",
		"models.providers.local.apiKey: environment variable LOCAL_KEY is not set",
		"models.providers.local.baseUrl: environment variable LLM_HOST is not set",
		"models.providers.script.rules[0].toolCall.arguments.deep[0]: environment variable ARG is not set",
	}
	if len(got) != len(want) {
		t.Fatalf("problems = %q, want %q", got, want)
	}
	for i := range want {
		if got[i].String() != want[i] {
			t.Errorf("problem %d = %q, want %q", i, got[i], want[i])
		}
	}
	// nil getenv: no environment at all.
	if got := parseProblems(t, `{gateway: {auth: {token: "${T}"}}}`, nil); len(got) != 1 || got[0].Path != "gateway.auth.token" {
		t.Errorf("nil getenv: %q", got)
	}
}
