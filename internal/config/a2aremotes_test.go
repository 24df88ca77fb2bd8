package config

import (
	"strings"
	"testing"
)

func TestA2ARemotesValidation(t *testing.T) {
	tests := []struct {
		name, in, path, msg string
	}{
		{"id empty", `{a2a: {remotes: [{url: "https://x.example/.well-known/agent-card.json"}]}}`, "a2a.remotes[0].id", "must not be empty"},
		{"id pattern", `{a2a: {remotes: [{id: "Plan ner", url: "https://x.example/c"}]}}`, "a2a.remotes[0].id", "must match"},
		{"id clashes with a local agent", `{agents: {list: [{id: "planner"}]}, a2a: {remotes: [{id: "planner", url: "https://x.example/c"}]}}`,
			"a2a.remotes[0].id", `"planner" is also a local agent id`},
		{"id clashes with the implicit main", `{a2a: {remotes: [{id: "main", url: "https://x.example/c"}]}}`, "a2a.remotes[0].id", "is also a local agent id"},
		{"id duplicate", `{a2a: {remotes: [{id: "p", url: "https://x.example/c"}, {id: "p", url: "https://y.example/c"}]}}`, "a2a.remotes[1].id", "duplicate remote id"},
		{"url missing", `{a2a: {remotes: [{id: "p"}]}}`, "a2a.remotes[0].url", "must not be empty"},
		{"url not http", `{a2a: {remotes: [{id: "p", url: "ftp://x.example/c"}]}}`, "a2a.remotes[0].url", "is not an http(s) URL"},
		{"token whitespace", `{a2a: {remotes: [{id: "p", url: "https://x.example/c", token: "a b"}]}}`, "a2a.remotes[0].token", "whitespace"},
		{"unknown key", `{a2a: {remotes: [{id: "p", url: "https://x.example/c", tokn: "x"}]}}`, "a2a.remotes[0].tokn", "unknown key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseProblems(t, tt.in, nil)
			if len(got) == 0 || got[0].Path != tt.path || !strings.Contains(got[0].Message, tt.msg) {
				t.Fatalf("Parse(%s) = %q, want %s: …%s…", tt.in, got, tt.path, tt.msg)
			}
		})
	}
}

func TestA2ARemotesTokenFromEnvAndRedacted(t *testing.T) {
	in := `{a2a: {remotes: [{id: "Planner", url: "https://x.example/.well-known/agent-card.json", token: "${PLANNER_TOKEN}"}]}}`
	cfg, err := Parse([]byte(in), func(k string) string {
		if k == "PLANNER_TOKEN" {
			return "secret-planner-token"
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	r, ok := cfg.Remote("planner")
	if !ok || r.Token != "secret-planner-token" || strings.Join(cfg.RemoteIDs(), ",") != "planner" {
		t.Fatalf("remote = %+v %v, ids %v", r, ok, cfg.RemoteIDs())
	}
	if got := cfg.Redacted().A2A.Remotes[0].Token; strings.Contains(got, "secret-planner") {
		t.Fatalf("redacted token = %q", got)
	}
	if _, err := Parse([]byte(in), nil); err == nil || !strings.Contains(err.Error(), "PLANNER_TOKEN") {
		t.Fatalf("unset token variable: %v", err)
	}
}

func TestShownURLMasksCredentials(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"https://agents.example.com/.well-known/agent-card.json", "https://agents.example.com/.well-known/agent-card.json"},
		{"https://agents.example.com/card.json?apikey=s3cret&v=1", "https://agents.example.com/card.json?apikey=***&v=***"},
		{"https://bob:hunter2@agents.example.com/card.json", "https://***@agents.example.com/card.json"},
		{"https://tok@agents.example.com/card.json#frag", "https://***@agents.example.com/card.json"},
	} {
		if got := (A2ARemote{URL: tc.url}).ShownURL(); got != tc.want {
			t.Errorf("ShownURL(%q) = %q, want %q", tc.url, got, tc.want)
		}
	}
}
