package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// parseProblems parses in and returns its problems (nil when it parses).
func parseProblems(t *testing.T, in string, getenv func(string) string) []Problem {
	t.Helper()
	_, err := Parse([]byte(in), getenv)
	if err == nil {
		return nil
	}
	var verr *ValidationError
	if !errors.As(err, &verr) {
		t.Fatalf("Parse(%s): want a *ValidationError, got %T: %v", in, err, err)
	}
	return verr.Problems
}

func TestUnknownKeys(t *testing.T) {
	tests := []struct {
		in   string
		want []Problem
	}{
		{`{sesion: {}}`, []Problem{{"sesion", `unknown key (did you mean "session"?)`}}},
		{`{nothingLikeIt: 1}`, []Problem{{"nothingLikeIt", "unknown key"}}},
		{`{Session: {}}`, []Problem{{"Session", `unknown key (did you mean "session"?)`}}},
		{`{tools: {sessions: {visiblity: "all"}}}`, []Problem{{"tools.sessions.visiblity", `unknown key (did you mean "visibility"?)`}}},
		{`{session: {agentToAgent: {maxPingPong: 1}}}`, []Problem{{"session.agentToAgent.maxPingPong", "unknown key"}}},
		{`{agents: {list: [{id: "a"}, {id: "b", modle: "script"}]}}`, []Problem{{"agents.list[1].modle", `unknown key (did you mean "model"?)`}}},
		{`{agents: {list: [{id: "a", sandbox: {mode: "all", extra: true}}]}}`, []Problem{{"agents.list[0].sandbox.extra", "unknown key"}}},
		{`{models: {providers: {script: {rules: [{when: {msg: "x"}, reply: "y"}]}}}}`, []Problem{{"models.providers.script.rules[0].when.msg", "unknown key"}}},
		{`{models: {providers: {"my.llm": {api: "openai", baseUrl: "http://x", key: "k"}}}}`, []Problem{{`models.providers["my.llm"].key`, "unknown key"}}},
		{`{gateway: {auth: {tokens: [{token: "t", scope: ["read"]}]}}}`, []Problem{{"gateway.auth.tokens[0].scope", `unknown key (did you mean "scopes"?)`}}},
		{`{x: 1, b: 2}`, []Problem{{"b", "unknown key"}, {"x", "unknown key"}}},
	}
	for _, tt := range tests {
		got := parseProblems(t, tt.in, nil)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Parse(%s) problems (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestFreeFormArgumentsAcceptAnyKey(t *testing.T) {
	cfg, err := Parse([]byte(`{models: {providers: {script: {rules: [
		{toolCall: {name: "sessions_send", arguments: {sessionKey: "main", nested: {deep: [1, 0x10, .5, "s"]}}}}
	]}}}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	args := cfg.Models.Providers["script"].Rules[0].ToolCall.Arguments
	want := map[string]any{"sessionKey": "main", "nested": map[string]any{"deep": []any{float64(1), float64(16), 0.5, "s"}}}
	if diff := cmp.Diff(want, args); diff != "" {
		t.Errorf("arguments (-want +got):\n%s", diff)
	}
}

func TestWrongTypes(t *testing.T) {
	tests := []struct {
		in   string
		path string
		msg  string
	}{
		{`{session: "x"}`, "session", "want an object, got a string"},
		{`{session: {scope: 1}}`, "session.scope", "want a string, got the number 1"},
		{`{session: {agentToAgent: {maxPingPongTurns: "5"}}}`, "session.agentToAgent.maxPingPongTurns", "want an integer, got a string"},
		{`{session: {agentToAgent: {maxPingPongTurns: 2.5}}}`, "session.agentToAgent.maxPingPongTurns", "want an integer, got 2.5"},
		{`{session: {agentToAgent: {maxHops: Infinity}}}`, "session.agentToAgent.maxHops", "want an integer, got the number +Inf"},
		{`{session: {agentToAgent: {maxHops: 1e30}}}`, "session.agentToAgent.maxHops", "is too large"},
		{`{session: {agentToAgent: {maxHops: true}}}`, "session.agentToAgent.maxHops", "want an integer, got a boolean"},
		{`{tools: {agentToAgent: {enabled: "yes"}}}`, "tools.agentToAgent.enabled", "want true or false, got a string"},
		{`{tools: {agentToAgent: {allow: "main"}}}`, "tools.agentToAgent.allow", "want an array, got a string"},
		{`{tools: {agentToAgent: {allow: [1]}}}`, "tools.agentToAgent.allow[0]", "want a string, got the number 1"},
		{`{agents: {list: {id: "a"}}}`, "agents.list", "want an array, got an object"},
		{`{agents: {list: ["main"]}}`, "agents.list[0]", "want an object, got a string"},
		{`{models: {providers: []}}`, "models.providers", "want an object, got an array"},
		{`{models: {providers: {script: {rules: [{reply: 1}]}}}}`, "models.providers.script.rules[0].reply", "want a string, got the number 1"},
		{`{models: {providers: {script: {rules: [{toolCall: {name: "x", arguments: {n: NaN}}}]}}}}`, "models.providers.script.rules[0].toolCall.arguments.n", "cannot be represented in JSON"},
		{`{models: {providers: {openai: {maxRetries: "2"}}}}`, "models.providers.openai.maxRetries", "want an integer, got a string"},
		{`{channels: {discord: "x"}}`, "channels.discord", "want an object, got a string"},
	}
	for _, tt := range tests {
		got := parseProblems(t, tt.in, nil)
		if len(got) != 1 || got[0].Path != tt.path || !strings.Contains(got[0].Message, tt.msg) {
			t.Errorf("Parse(%s) = %v, want one problem at %s containing %q", tt.in, got, tt.path, tt.msg)
		}
	}
}

func TestNullMeansDefault(t *testing.T) {
	cfg, err := Parse([]byte(`{session: {scope: null, agentToAgent: null, sendPolicy: null}, agents: {list: null}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Default(), cfg); diff != "" {
		t.Errorf("nulls (-want +got):\n%s", diff)
	}
}

func TestIntegerForms(t *testing.T) {
	cfg, err := Parse([]byte(`{
		tools: {sessions_spawn: {attachments: {maxFiles: +7, maxFileBytes: 0x100000, maxTotalBytes: 5e6}}},
		runtime: {maxSteps: 10.0},
	}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	a := cfg.Tools.SessionsSpawn.Attachments
	if a.MaxFiles != 7 || a.MaxFileBytes != 1<<20 || a.MaxTotalBytes != 5_000_000 || cfg.Runtime.MaxSteps != 10 {
		t.Errorf("got maxFiles=%d maxFileBytes=%d maxTotalBytes=%d maxSteps=%d", a.MaxFiles, a.MaxFileBytes, a.MaxTotalBytes, cfg.Runtime.MaxSteps)
	}
}

func TestJSON5Features(t *testing.T) {
	in := `
// line comment
/* block
   comment */
{
  session: {
    'mainKey': 'home', // single quotes, unquoted and quoted keys
    "scope": "per-sender",
  },
  agents: { list: [ { id: "a", systemPrompt: "line one \
line two", }, ], },
  runtime: { maxSteps: 0xA, },
}
`
	cfg, err := Parse([]byte(in), nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Session.MainKey != "home" || cfg.Runtime.MaxSteps != 10 || cfg.Agents.List[0].SystemPrompt != "line one line two" {
		t.Errorf("got mainKey=%q maxSteps=%d systemPrompt=%q", cfg.Session.MainKey, cfg.Runtime.MaxSteps, cfg.Agents.List[0].SystemPrompt)
	}
}

func TestSyntaxErrors(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"{\n  session: {\n    scope: \"x\"\n    mainKey: \"y\"\n  }\n}", "line 4, column 5"},
		{"{a: 1} trailing", "after top-level value"},
		{"{a: 1}{b: 2}", "after top-level value"},
		{"{", "line 1"},
		{"[]", "top level must be an object, got an array"},
		{`"str"`, "top level must be an object, got a string"},
		{"null", "top level must be an object, got null"},
		{"/* unterminated", "config: line 1, column 15: unexpected end of JSON input"},
		{strings.Repeat("[", 100) + strings.Repeat("]", 100), "nested deeper than 64 levels"},
		{`{a: "` + strings.Repeat("[", 100) + `"}`, "unknown key"}, // brackets in strings are not nesting
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.in), nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%.40q) error = %v, want it to contain %q", tt.in, err, tt.want)
		}
	}
}

func TestTooManyProblemsAreCapped(t *testing.T) {
	var b strings.Builder
	b.WriteString("{")
	for i := range 200 {
		b.WriteString("k")
		b.WriteString(strings.Repeat("x", i%10))
		b.WriteString(string(rune('a' + i%26)))
		b.WriteString(strings.Repeat("y", i/26))
		b.WriteString(": 1,")
	}
	b.WriteString("}")
	if got := parseProblems(t, b.String(), nil); len(got) != maxProblems {
		t.Errorf("got %d problems, want the cap %d", len(got), maxProblems)
	}
}
