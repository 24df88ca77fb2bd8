package config

import (
	"os"
	"reflect"
	"slices"
	"testing"

	"github.com/titanous/json5"
)

var fullEnv = map[string]string{
	"OPENAI_API_KEY": "sk-openai", "ANTHROPIC_API_KEY": "sk-ant", "SWITCHBOARD_TOKEN": "main-token",
	"SWITCHBOARD_READ_TOKEN": "read-token", "SWITCHBOARD_MCP_TOKEN": "mcp-token",
	"DATABASE_URL":  "postgres://switchboard:pw@db.example.com/switchboard",
	"PLANNER_TOKEN": "planner-token", "OTLP_KEY": "otlp-key",
}

// TestFullExample loads testdata/full.json5, the example copied into the
// docs, and checks that it is valid and sets what it says.
func TestFullExample(t *testing.T) {
	cfg, err := Load("testdata/full.json5", env(fullEnv))
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"default agent", cfg.DefaultAgentID(), "main"},
		{"agent ids", cfg.AgentIDs(), []string{"main", "research", "ops"}},
		{"research model", cfg.AgentModel("research"), "openai/gpt-4.1-mini"},
		{"research sandboxed", cfg.AgentSandboxed("research"), true},
		{"openai key", cfg.Models.Providers["openai"].APIKey, "sk-openai"},
		{"local timeout", cfg.Models.Providers["local"].TimeoutSeconds, 300},
		{"local retries", *cfg.Models.Providers["local"].MaxRetries, 0},
		{"rules", len(cfg.Models.Providers["script"].Rules), 5},
		{"third send rule action", cfg.Session.SendPolicy.Rules[2].Action, "allow"},
		{"mcp token session", cfg.Gateway.Auth.Tokens[1].Session, "agent:research:main"},
		{"mcp token name", cfg.Gateway.Auth.Tokens[1].Name, "research-mcp"},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %#v, want %#v", c.name, c.got, c.want)
		}
	}
	// Scalars the example shows at their default really are the defaults.
	def := Default()
	same := []struct {
		name      string
		got, want any
	}{
		{"session.scope", cfg.Session.Scope, def.Session.Scope},
		{"session.mainKey", cfg.Session.MainKey, def.Session.MainKey},
		{"session.agentToAgent", cfg.Session.AgentToAgent, def.Session.AgentToAgent},
		{"tools.sessions", cfg.Tools.Sessions, def.Tools.Sessions},
		{"tools.agentToAgent.enabled", cfg.Tools.AgentToAgent.Enabled, def.Tools.AgentToAgent.Enabled},
		{"attachments", cfg.Tools.SessionsSpawn.Attachments, def.Tools.SessionsSpawn.Attachments},
		{"agents.defaults.model", cfg.Agents.Defaults.Model, def.Agents.Defaults.Model},
		{"agents.defaults.sandbox", cfg.Agents.Defaults.Sandbox, def.Agents.Defaults.Sandbox},
		{"gateway.listen", cfg.Gateway.Listen, def.Gateway.Listen},
		{"runtime", cfg.Runtime, def.Runtime},
	}
	for _, c := range same {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("example %s = %#v, default is %#v", c.name, c.got, c.want)
		}
	}
	sub, dsub := cfg.Agents.Defaults.Subagents, def.Agents.Defaults.Subagents
	sub.AllowAgents, sub.Model, sub.Budget = nil, "", nil // the example shows a budget; the default has none
	if !reflect.DeepEqual(sub, dsub) {
		t.Errorf("example agents.defaults.subagents numbers = %+v, defaults %+v", sub, dsub)
	}
}

// TestFullExampleHasEveryKey fails when a key is added to Config but not
// to the example.
func TestFullExampleHasEveryKey(t *testing.T) {
	data, err := os.ReadFile("testdata/full.json5")
	if err != nil {
		t.Fatal(err)
	}
	var raw any
	if err := json5.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	typePaths(reflect.TypeFor[Config](), "", want)
	got := map[string]bool{}
	dataPaths(raw, reflect.TypeFor[Config](), "", got)
	var missing []string
	for p := range want {
		if !got[p] {
			missing = append(missing, p)
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Errorf("testdata/full.json5 lacks %d keys:\n%q", len(missing), missing)
	}
	if len(want) < 80 {
		t.Errorf("only %d key paths found in Config; the walk is broken", len(want))
	}
}

// typePaths lists the key paths of t, with [] for any list element and *
// for any map entry.
func typePaths(t reflect.Type, path string, out map[string]bool) {
	switch t.Kind() {
	case reflect.Pointer:
		typePaths(t.Elem(), path, out)
	case reflect.Struct:
		for name, f := range jsonFields(t) {
			p := joinPath(path, name)
			out[p] = true
			typePaths(f.Type, p, out)
		}
	case reflect.Slice:
		typePaths(t.Elem(), path+"[]", out)
	case reflect.Map:
		if t.Elem().Kind() != reflect.Interface {
			typePaths(t.Elem(), path+".*", out)
		}
	}
}

// dataPaths lists the key paths present in a decoded JSON5 value of type t.
func dataPaths(v any, t reflect.Type, path string, out map[string]bool) {
	switch t.Kind() {
	case reflect.Pointer:
		dataPaths(v, t.Elem(), path, out)
	case reflect.Struct:
		m, _ := v.(map[string]any)
		fields := jsonFields(t)
		for k, x := range m {
			if f, ok := fields[k]; ok {
				p := joinPath(path, k)
				out[p] = true
				dataPaths(x, f.Type, p, out)
			}
		}
	case reflect.Slice:
		a, _ := v.([]any)
		for _, x := range a {
			dataPaths(x, t.Elem(), path+"[]", out)
		}
	case reflect.Map:
		m, _ := v.(map[string]any)
		for _, x := range m {
			if t.Elem().Kind() != reflect.Interface {
				dataPaths(x, t.Elem(), path+".*", out)
			}
		}
	}
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
