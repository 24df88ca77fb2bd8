package config

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestMask(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"short", "***"},
		{"fifteen-chars-x", "***"},
		{"sk-proj-0123456789abcdef", "***cdef"},
	}
	for _, tt := range tests {
		if got := mask(tt.in); got != tt.want {
			t.Errorf("mask(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestRedacted(t *testing.T) {
	secrets := map[string]string{
		"OPENAI_API_KEY": "sk-proj-SECRET-openai-0001", "ANTHROPIC_API_KEY": "sk-ant-SECRET-0002",
		"SWITCHBOARD_TOKEN": "gw-SECRET-main-token-0003", "SWITCHBOARD_READ_TOKEN": "rd-SECRET",
		"SWITCHBOARD_MCP_TOKEN": "mcp-SECRET-token-long-0004", "DATABASE_URL": "postgres://sb:SECRET-db-pw@db:5432/sb",
		"PLANNER_TOKEN": "planner-SECRET-token-0005", "OTLP_KEY": "otlp-SECRET-key-0006",
	}
	cfg, err := Load("testdata/full.json5", env(secrets))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Models.Providers["local"] = func(p ProviderConfig) ProviderConfig {
		p.BaseURL = "http://user:SECRET-pw@127.0.0.1:11434/v1"
		return p
	}(cfg.Models.Providers["local"])
	before, err := cfg.MarshalIndent()
	if err != nil {
		t.Fatal(err)
	}

	red := cfg.Redacted()
	out, err := red.MarshalIndent()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "SECRET") {
		t.Errorf("redacted config shows a secret:\n%s", out)
	}
	checks := []struct{ got, want string }{
		{red.Models.Providers["openai"].APIKey, "***0001"},
		{red.Models.Providers["anthropic"].APIKey, "***0002"},
		{red.Gateway.Auth.Token, "***0003"},
		{red.Gateway.Auth.Tokens[0].Token, "***"},
		{red.Gateway.Auth.Tokens[1].Token, "***0004"},
		{red.Models.Providers["local"].BaseURL, "http://user:%2A%2A%2A@127.0.0.1:11434/v1"},
		{red.Channels.Webhook["ops"].URL, cfg.Channels.Webhook["ops"].URL},
		{red.A2A.Remotes[0].Token, "***0005"},
	}
	for i, c := range checks {
		if c.got != c.want {
			t.Errorf("check %d: got %q, want %q", i, c.got, c.want)
		}
	}

	// The original is untouched, and the copy shares nothing with it.
	after, _ := cfg.MarshalIndent()
	if diff := cmp.Diff(string(before), string(after)); diff != "" {
		t.Errorf("Redacted changed the original (-before +after):\n%s", diff)
	}
	red.Agents.List[0].Subagents.AllowAgents[0] = "changed"
	red.Models.Providers["script"].Rules[1].ToolCall.Arguments["limit"] = "changed"
	*red.Models.Providers["openai"].MaxRetries = 9
	if cfg.Agents.List[0].Subagents.AllowAgents[0] == "changed" ||
		cfg.Models.Providers["script"].Rules[1].ToolCall.Arguments["limit"] == "changed" ||
		*cfg.Models.Providers["openai"].MaxRetries == 9 {
		t.Error("Redacted shares memory with the original")
	}
}

func TestMarshalIndentRoundTrips(t *testing.T) {
	cfg, err := Load("testdata/full.json5", env(map[string]string{
		"OPENAI_API_KEY": "a", "ANTHROPIC_API_KEY": "b", "SWITCHBOARD_TOKEN": "c",
		"SWITCHBOARD_READ_TOKEN": "d", "SWITCHBOARD_MCP_TOKEN": "e", "DATABASE_URL": "postgres://h/db", "PLANNER_TOKEN": "f", "OTLP_KEY": "g",
	}))
	if err != nil {
		t.Fatal(err)
	}
	out, err := cfg.MarshalIndent()
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(out) || !strings.HasSuffix(string(out), "}\n") {
		t.Fatalf("MarshalIndent is not indented JSON ending in a newline:\n%s", out)
	}
	again, err := Parse(out, nil)
	if err != nil {
		t.Fatalf("Parse(MarshalIndent()): %v", err)
	}
	// Empty and absent lists mean the same everywhere but allowAgents,
	// which keeps its [] (checked below).
	if diff := cmp.Diff(cfg, again, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	quiet, err := Parse([]byte(`{agents: {list: [{id: "a", subagents: {allowAgents: []}}]}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	out, _ = quiet.MarshalIndent()
	if again, err := Parse(out, nil); err != nil || again.AllowAgents("a") == nil {
		t.Errorf("an explicit empty allowAgents did not survive MarshalIndent: %v\n%s", err, out)
	}
	def, err := Default().MarshalIndent()
	if err != nil {
		t.Fatal(err)
	}
	if again, err := Parse(def, nil); err != nil || !cmp.Equal(Default(), again) {
		t.Errorf("Default round trip: %v", err)
	}
}

// A provider block's credentials are masked; a secret reference stays.
func TestRedactedChannelSecrets(t *testing.T) {
	cfg, err := Parse([]byte(`{channels: {telegram: {botToken: "123:SECRET-telegram-0006",
		accounts: {b: {botToken: "456:SECRET-telegram-0007", webhookSecret: "SECRET-hook-0008"}}}}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := cfg.Redacted().MarshalIndent()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "SECRET") {
		t.Errorf("redacted config shows a secret:\n%s", out)
	}
	if !strings.Contains(string(out), "***0006") || !strings.Contains(string(out), "***0008") {
		t.Errorf("masks missing:\n%s", out)
	}
	if cfg.Channels.Telegram["botToken"] != "123:SECRET-telegram-0006" {
		t.Error("Redacted changed the original")
	}
}
