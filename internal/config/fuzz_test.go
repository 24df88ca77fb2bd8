package config

import (
	"errors"
	"os"
	"testing"
)

func FuzzParse(f *testing.F) {
	if data, err := os.ReadFile("testdata/full.json5"); err == nil {
		f.Add(data)
	}
	for _, s := range []string{
		"", "{}", "[]", "null", "{a:1}", `{session: {scope: "global", mainKey: "x:y"}}`,
		`{agents: {list: [{id: "a", default: true}, {id: "A", default: true}]}}`,
		`{models: {providers: {script: {rules: [{when: {message: "("}, reply: "${X}", toolCall: {name: ""}}]}}}}`,
		`{runtime: {maxSteps: 0x7fffffffffffffff, lanes: {main: -0x8000000000000000}}}`,
		`{tools: {sessions_spawn: {attachments: {maxFileBytes: 1e400}}}}`,
		`{models: {providers: {script: {rules: [{toolCall: {name: "x", arguments: {a: [Infinity, NaN, -0]}}}]}}}}`,
		"{gateway: {auth: {tokens: [{token: \"t\", session: \"agent:main:\\u0000\"}]}}}",
		"/* c */ {/* d */ a: [/* e */]} // f",
	} {
		f.Add([]byte(s))
	}
	getenv := env(map[string]string{"X": "x", "OPENAI_API_KEY": "k"})
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse(data, getenv)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			var verr *ValidationError
			if errors.As(err, &verr) && len(verr.Problems) == 0 {
				t.Fatal("ValidationError without problems")
			}
			return
		}
		// A config that parses validates, redacts, prints and parses again.
		if err := cfg.Validate(); err != nil {
			t.Fatalf("Parse accepted a config that Validate refuses: %v", err)
		}
		out, err := cfg.Redacted().MarshalIndent()
		if err != nil {
			t.Fatalf("MarshalIndent: %v", err)
		}
		if _, err := cfg.MarshalIndent(); err != nil {
			t.Fatalf("MarshalIndent: %v", err)
		}
		_ = out
		_ = cfg.DefaultAgentID()
		_ = cfg.AgentIDs()
		_ = cfg.Workspace("/state", cfg.DefaultAgentID())
		_, _ = cfg.KeyResolver().Canonical("main", "")
	})
}
