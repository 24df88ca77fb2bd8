package sessionkey

import (
	"strings"
	"testing"
)

func TestCanonical(t *testing.T) {
	def := Resolver{}
	work := Resolver{MainKey: "Work", DefaultAgentID: "ops"}
	global := Resolver{GlobalScope: true}
	tests := []struct {
		name      string
		r         Resolver
		input     string
		requester string
		want      string
		wantErr   string
	}{
		{name: "main", r: def, input: "main", want: "agent:main:main"},
		{name: "main of requester", r: def, input: "main", requester: "research", want: "agent:research:main"},
		{name: "main trimmed and lowercased", r: def, input: "  MAIN ", requester: "Research", want: "agent:research:main"},
		{name: "configured main key", r: work, input: "work", want: "agent:ops:work"},
		{name: "literal main with another main key", r: work, input: "main", requester: "a", want: "agent:a:work"},
		{name: "global aliased", r: global, input: "global", requester: "a", want: "agent:a:main"},
		{name: "global reserved", r: def, input: "global", wantErr: "reserved"},
		{name: "unknown reserved", r: def, input: "unknown", wantErr: "reserved"},
		{name: "unknown reserved under global scope", r: global, input: "Unknown", wantErr: "reserved"},
		{name: "current reserved", r: def, input: "current", wantErr: "reserved"},
		{name: "canonical kept", r: def, input: "agent:main:main", requester: "other", want: "agent:main:main"},
		{name: "canonical lowercased", r: def, input: "Agent:Ops:Discord:Group:42", want: "agent:ops:discord:group:42"},
		{name: "agent key of another agent", r: work, input: "agent:main:main", want: "agent:main:main"},
		{name: "cron legacy", r: work, input: "cron:nightly", requester: "x", want: "agent:ops:cron:nightly"},
		{name: "hook legacy", r: def, input: "hook:0b7c4e1a-0000-4000-8000-000000000001", want: "agent:main:hook:0b7c4e1a-0000-4000-8000-000000000001"},
		{name: "node dash legacy", r: def, input: "node-pi", want: "agent:main:node-pi"},
		{name: "node colon legacy", r: def, input: "node:pi", want: "agent:main:node:pi"},
		{name: "group legacy", r: def, input: "discord:group:123", want: "agent:main:discord:group:123"},
		{name: "channel legacy", r: def, input: "slack:channel:c1", want: "agent:main:slack:channel:c1"},
		{name: "bare key", r: def, input: "Scratch", want: "agent:main:scratch"},
		{name: "bare key of the requester's agent", r: work, input: "Research", requester: "beta", want: "agent:beta:research"},
		{name: "bare key without requester", r: work, input: "research", want: "agent:ops:research"},
		{name: "legacy key stays with the default agent", r: work, input: "node-pi", requester: "beta", want: "agent:ops:node-pi"},
		{name: "bad requester for a bare key", r: def, input: "x", requester: "a b", wantErr: "invalid requester agent id"},
		{name: "empty", r: def, input: "   ", wantErr: "empty"},
		{name: "inner space", r: def, input: "my key", wantErr: "whitespace"},
		{name: "control", r: def, input: "a\x07", wantErr: "non-printing"},
		{name: "bad utf8", r: def, input: "a\xc3", wantErr: "UTF-8"},
		{name: "short agent key", r: def, input: "agent:main", wantErr: "want agent:<agentId>:<rest>"},
		{name: "agent key empty rest", r: def, input: "agent:main:", wantErr: "empty after"},
		{name: "agent key bad id", r: def, input: "agent:no way:main", wantErr: "whitespace"},
		{name: "agent key bad id chars", r: def, input: "agent:a.b:main", wantErr: `agent id "a.b"`},
		{name: "empty segment", r: def, input: "cron:", wantErr: "empty ':'-separated part"},
		{name: "leading colon", r: def, input: ":x", wantErr: "empty ':'-separated part"},
		{name: "double colon", r: def, input: "discord::group", wantErr: "empty ':'-separated part"},
		{name: "bad requester", r: def, input: "main", requester: "no way", wantErr: "invalid requester agent id"},
		{name: "bad default agent", r: Resolver{DefaultAgentID: "a b"}, input: "x", wantErr: "invalid default agent id"},
		{name: "too long", r: def, input: strings.Repeat("x", MaxKeyLen), wantErr: "sessionKey is too long"},
		{name: "too long raw", r: def, input: strings.Repeat("x", MaxKeyLen+1), wantErr: "sessionKey is too long"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.r.Canonical(tt.input, tt.requester)
			if tt.wantErr != "" {
				checkInvalid(t, err, tt.wantErr)
				return
			}
			if err != nil {
				t.Fatalf("Canonical(%q, %q): %v", tt.input, tt.requester, err)
			}
			if got != tt.want {
				t.Fatalf("Canonical(%q, %q) = %q, want %q", tt.input, tt.requester, got, tt.want)
			}
			again, err := tt.r.Canonical(got, "someone-else")
			if err != nil || again != got {
				t.Errorf("Canonical(%q) = %q, %v; want it unchanged", got, again, err)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	r := Resolver{MainKey: "home", DefaultAgentID: "ops"}
	tests := []struct {
		input, requesterKey, want string
	}{
		{"current", "agent:research:subagent:x", "agent:research:subagent:x"},
		{" Current ", "", "agent:ops:home"},
		{"main", "agent:research:subagent:x", "agent:research:home"},
		{"main", "", "agent:ops:home"},
		{"main", "cron:legacy", "agent:ops:home"},
		{"cron:x", "agent:research:main", "agent:ops:cron:x"},
		{"agent:a:b", "agent:research:main", "agent:a:b"},
	}
	for _, tt := range tests {
		got, err := r.Resolve(tt.input, tt.requesterKey)
		if err != nil || got != tt.want {
			t.Errorf("Resolve(%q, %q) = %q, %v; want %q", tt.input, tt.requesterKey, got, err, tt.want)
		}
	}
}

func TestMainSessionKeyAndAgentOf(t *testing.T) {
	r := Resolver{MainKey: " Home ", DefaultAgentID: "Ops"}
	if got := r.Main(); got != "home" {
		t.Errorf("Main() = %q", got)
	}
	if got := r.MainSessionKey(""); got != "agent:ops:home" {
		t.Errorf("MainSessionKey(\"\") = %q", got)
	}
	if got := r.MainSessionKey("Research"); got != "agent:research:home" {
		t.Errorf("MainSessionKey(Research) = %q", got)
	}
	if got := (Resolver{}).MainSessionKey(""); got != "agent:main:main" {
		t.Errorf("zero Resolver MainSessionKey = %q", got)
	}
	if got := r.AgentOf("agent:research:x"); got != "research" {
		t.Errorf("AgentOf(canonical) = %q", got)
	}
	if got := r.AgentOf("cron:x"); got != "ops" {
		t.Errorf("AgentOf(legacy) = %q", got)
	}
}

func TestDisplay(t *testing.T) {
	r := Resolver{MainKey: "home"}
	tests := []struct {
		key, requester, want string
	}{
		{"agent:main:home", "", "main"},
		{"agent:main:home", "main", "main"},
		{"agent:research:home", "research", "main"},
		{"agent:research:home", "main", "agent:research:home"}, // another agent's main stays a key
		{"agent:main:main", "main", "agent:main:main"},         // not the configured main key
		{"agent:main:home:x", "main", "agent:main:home:x"},
		{"agent:main:subagent:x", "main", "agent:main:subagent:x"},
	}
	for _, tt := range tests {
		if got := r.Display(tt.key, tt.requester); got != tt.want {
			t.Errorf("Display(%q, %q) = %q, want %q", tt.key, tt.requester, got, tt.want)
		}
	}
}

// TestCanonicalCountsCharacters pins the key length unit to characters, the
// unit of api.KeyChars: a multi-byte key under 512 characters is accepted.
func TestCanonicalCountsCharacters(t *testing.T) {
	r := Resolver{}
	in := "agent:main:" + strings.Repeat("é", 300)
	if _, err := r.Canonical(in, "main"); err != nil {
		t.Fatalf("Canonical(300 × é): %v", err)
	}
	_, err := r.Canonical("agent:main:"+strings.Repeat("é", MaxKeyLen), "main")
	if err == nil || !strings.Contains(err.Error(), "sessionKey is too long") || !strings.Contains(err.Error(), "max 512") {
		t.Fatalf("Canonical(512 × é) error = %v, want one naming sessionKey and max 512", err)
	}
}
