package cli

import (
	"testing"

	"github.com/switchboard-go/switchboard/internal/config"
)

func TestA2AAgents(t *testing.T) {
	parse := func(src string) *config.Config {
		t.Helper()
		cfg, err := config.Parse([]byte(src), func(string) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	ids := func(cfg *config.Config) []string {
		var out []string
		for _, a := range A2AAgents(cfg) {
			out = append(out, a.ID)
		}
		return out
	}
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"no config: main", `{}`, []string{"main"}},
		{"every agent, the default first", `{agents: {list: [{id: "a"}, {id: "b", default: true}]}}`, []string{"b", "a"}},
		{"expose narrows", `{agents: {list: [{id: "a"}, {id: "b"}, {id: "c"}]}, a2a: {expose: ["C", "a"]}}`, []string{"a", "c"}},
		{"disabled: none", `{a2a: {enabled: false}}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ids(parse(tt.src))
			if len(got) != len(tt.want) {
				t.Fatalf("agents = %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("agents = %v, want %v", got, tt.want)
				}
			}
		})
	}
	public := func(src string) map[string]bool {
		out := map[string]bool{}
		for _, a := range A2AAgents(parse(src)) {
			out[a.ID] = a.Public
		}
		return out
	}
	three := `agents: {list: [{id: "a"}, {id: "b", default: true}, {id: "c"}]}`
	for _, tt := range []struct {
		name, src string
		want      map[string]bool
	}{
		{"default: the default agent's only", `{` + three + `}`, map[string]bool{"a": false, "b": true, "c": false}},
		{"publicCards adds", `{` + three + `, a2a: {publicCards: ["C"]}}`, map[string]bool{"a": false, "b": true, "c": true}},
		{"star: every one", `{` + three + `, a2a: {publicCards: ["*"]}}`, map[string]bool{"a": true, "b": true, "c": true}},
		{"the well-known card is public", `{` + three + `, a2a: {expose: ["a", "c"]}}`, map[string]bool{"a": true, "c": false}},
	} {
		if got := public(tt.src); len(got) != len(tt.want) || got["a"] != tt.want["a"] || got["b"] != tt.want["b"] || got["c"] != tt.want["c"] {
			t.Errorf("%s: public = %v, want %v", tt.name, got, tt.want)
		}
	}
	a := A2AAgents(parse(`{agents: {list: [{id: "a", name: "Alpha", description: "d", skills: [{id: "s", tags: ["x"]}]}]}}`))[0]
	if a.Name != "Alpha" || a.Description != "d" || len(a.Skills) != 1 || a.Skills[0].Name != "s" || a.Skills[0].Tags[0] != "x" {
		t.Errorf("agent = %+v", a)
	}
}
