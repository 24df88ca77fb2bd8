package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/attachments"
)

var update = flag.Bool("update", false, "rewrite the golden schema file")

// TestSchemasGolden pins the advertised schemas: a changed parameter,
// limit or description shows up as a diff.
func TestSchemasGolden(t *testing.T) {
	var buf bytes.Buffer
	for _, s := range Specs() {
		var v any
		if err := json.Unmarshal(s.InputSchema, &v); err != nil {
			t.Fatalf("%s: schema is not JSON: %v", s.Name, err)
		}
		b, _ := json.MarshalIndent(map[string]any{"name": s.Name, "description": s.Description, "inputSchema": v}, "", "  ")
		buf.Write(b)
		buf.WriteByte('\n')
	}
	path := filepath.Join("testdata", "schemas.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run TestSchemasGolden -update)", err)
	}
	if diff := cmp.Diff(string(want), buf.String()); diff != "" {
		t.Errorf("schemas changed (-golden +now; rerun with -update if intended):\n%s", diff)
	}
}

// TestSchemasReadLimits: each numeric limit in a schema is the api's.
func TestSchemasReadLimits(t *testing.T) {
	specs := map[string]map[string]any{}
	for _, s := range Specs() {
		var v map[string]any
		if err := json.Unmarshal(s.InputSchema, &v); err != nil {
			t.Fatal(err)
		}
		specs[s.Name] = v
	}
	prop := func(tool, name string) map[string]any {
		props, _ := specs[tool]["properties"].(map[string]any)
		p, _ := props[name].(map[string]any)
		if p == nil {
			t.Fatalf("%s has no property %s", tool, name)
		}
		return p
	}
	for _, c := range []struct {
		tool, name string
		l          api.Limit
	}{
		{api.ToolSessionsList, "limit", api.ListLimit},
		{api.ToolSessionsList, "messageLimit", api.ListMessageLimit},
		{api.ToolSessionsHistory, "limit", api.HistoryLimit},
		{api.ToolSessionsSend, "timeoutSeconds", api.SendTimeout},
		{api.ToolSessionsSpawn, "runTimeoutSeconds", api.SpawnRunTimeout},
		{api.ToolRunsWait, "timeoutSeconds", api.WaitTimeout},
	} {
		p := prop(c.tool, c.name)
		if p["type"] != "number" || p["minimum"] != float64(c.l.Min) {
			t.Errorf("%s.%s = %v, want type number, minimum %d", c.tool, c.name, p, c.l.Min)
		}
		if d, _ := p["description"].(string); !strings.Contains(d, c.l.Describe()) {
			t.Errorf("%s.%s description %q does not state %q", c.tool, c.name, d, c.l.Describe())
		}
	}
	if _, ok := specs[api.ToolSessionsSend]["properties"].(map[string]any)["idempotencyKey"]; ok {
		t.Errorf("idempotencyKey is advertised to models; it should be hidden")
	}
	if specs[api.ToolSessionsList]["additionalProperties"] != false {
		t.Errorf("sessions_list schema allows additional properties")
	}
}

func TestCallDecodes(t *testing.T) {
	week := int(api.SpawnRunTimeout.Max)
	thirty := 30
	tests := []struct {
		name, tool, args string
		want             any
		wantErr          string
	}{
		{"list defaults", api.ToolSessionsList, `{}`, api.ListRequest{}, ""},
		{"list clamps", api.ToolSessionsList, `{"limit": 5000, "message_limit": 99, "activeMinutes": 0}`,
			api.ListRequest{Limit: 200, MessageLimit: 20, ActiveMinutes: 1}, ""},
		{"list kinds lowercased", api.ToolSessionsList, `{"kinds": [" Main "]}`, api.ListRequest{Kinds: []string{"main"}}, ""},
		{"list limit not a number", api.ToolSessionsList, `{"limit": "5"}`, nil, "limit must be a number"},
		{"list fraction", api.ToolSessionsList, `{"limit": 1.5}`, nil, "limit must be a whole number"},
		{"list negative", api.ToolSessionsList, `{"messageLimit": -1}`, nil, "messageLimit must be at least 0"},
		{"list huge", api.ToolSessionsList, `{"limit": 1e308}`, api.ListRequest{Limit: 200}, ""},
		{"list unknown", api.ToolSessionsList, `{"bogus": 1}`, nil, `unknown parameter "bogus"`},
		{"list too many kinds", api.ToolSessionsList, `{"kinds": ["a","a","a","a","a","a","a","a","a","a","a","a","a","a","a","a","a"]}`, nil, "kinds has too many items"},
		{"not an object", api.ToolSessionsList, `[1]`, nil, "arguments must be a JSON object"},
		{"history required", api.ToolSessionsHistory, `{}`, nil, "sessionKey required"},
		{"history blank", api.ToolSessionsHistory, `{"sessionKey": "  "}`, nil, "sessionKey required (it is empty)"},
		{"history alias", api.ToolSessionsHistory, `{"session_key": "main", "include_tools": true, "limit": 2000}`,
			api.HistoryRequest{SessionKey: "main", IncludeTools: true, Limit: 1000}, ""},
		{"send default timeout", api.ToolSessionsSend, `{"sessionKey": "x", "message": "hi"}`,
			api.SendRequest{SessionKey: "x", Message: "hi"}, ""},
		{"send timeout clamped", api.ToolSessionsSend, `{"sessionKey": "x", "message": "hi", "timeoutSeconds": 99999}`,
			api.SendRequest{SessionKey: "x", Message: "hi", TimeoutSeconds: ptr(3600)}, ""},
		{"send timeout zero", api.ToolSessionsSend, `{"sessionKey": "x", "message": "hi", "timeout_seconds": 0, "idempotencyKey": "k"}`,
			api.SendRequest{SessionKey: "x", Message: "hi", TimeoutSeconds: ptr(0), IdempotencyKey: "k"}, ""},
		{"send message required", api.ToolSessionsSend, `{"sessionKey": "x"}`, nil, "message required"},
		{"send message too long", api.ToolSessionsSend, `{"message": "` + strings.Repeat("x", int(api.MessageChars.Max)+1) + `"}`, nil, "message is too long"},
		{"spawn a week", api.ToolSessionsSpawn, `{"task": "t", "runTimeoutSeconds": 604800}`,
			api.SpawnRequest{Task: "t", RunTimeoutSeconds: &week}, ""},
		{"spawn past a week", api.ToolSessionsSpawn, `{"task": "t", "runTimeoutSeconds": 604801}`, nil, "runTimeoutSeconds must be at most 604800"},
		{"spawn timeoutSeconds alias", api.ToolSessionsSpawn, `{"task": "t", "timeoutSeconds": 30}`,
			api.SpawnRequest{Task: "t", RunTimeoutSeconds: &thirty}, ""},
		{"spawn bad enum", api.ToolSessionsSpawn, `{"task": "t", "mode": "forever"}`, nil, "mode must be one of run|session"},
		// OpenClaw's runtime (only "subagent" here) and lightContext (a
		// child's context is always light) are accepted and change nothing.
		{"spawn runtime and lightContext", api.ToolSessionsSpawn, `{"task": "t", "runtime": "subagent", "light_context": true}`,
			api.SpawnRequest{Task: "t"}, ""},
		{"spawn thinking normalized", api.ToolSessionsSpawn, `{"task": "t", "thinking": " High "}`, api.SpawnRequest{Task: "t", Thinking: "high"}, ""},
		{"spawn acp runtime refused", api.ToolSessionsSpawn, `{"task": "t", "runtime": "acp"}`, nil, `runtime must be one of subagent (got "acp")`},
		{"spawn delivery refused", api.ToolSessionsSpawn, `{"task": "t", "channel": "x"}`, nil, `sessions_spawn does not support "channel"`},
		{"spawn attachAs", api.ToolSessionsSpawn, `{"task": "t", "attachAs": {"mountPath": "/m"}}`,
			api.SpawnRequest{Task: "t", MountPath: "/m"}, ""},
		// Nested objects fold snake_case like top-level parameters and refuse
		// unknown fields (the schema says additionalProperties: false).
		{"spawn nested aliases", api.ToolSessionsSpawn, `{"task": "t", "attach_as": {"mount_path": "/m"}, "attachments": [{"name": "a", "content": "x", "mime_type": "text/plain"}], "budget": {"cost_usd": 1, "tokens": 5}}`,
			api.SpawnRequest{Task: "t", MountPath: "/m", Attachments: []attachments.Spec{{Name: "a", Content: "x", MimeType: "text/plain"}},
				Budget: &api.SpawnBudget{Tokens: fptr(5), CostUSD: fptr(1)}}, ""},
		{"spawn attachment unknown field", api.ToolSessionsSpawn, `{"task": "t", "attachments": [{"name": "a", "content": "x", "mime": "text/plain"}]}`,
			nil, `attachments[0]: unknown field "mime" (accepted: name, content, encoding, mimeType)`},
		{"spawn attachAs unknown field", api.ToolSessionsSpawn, `{"task": "t", "attachAs": {"path": "/m"}}`, nil, `attachAs: unknown field "path"`},
		{"spawn budget unknown field", api.ToolSessionsSpawn, `{"task": "t", "budget": {"usd": 1}}`, nil, `budget: unknown field "usd" (accepted: tokens, costUsd, seconds)`},
		{"spawn attachments not an array", api.ToolSessionsSpawn, `{"task": "t", "attachments": {"name": "a"}}`, nil, "attachments must be an array"},
		{"agents no params", api.ToolAgentsList, `{"x": 1}`, nil, `agents_list: unknown parameter "x" (it takes no parameters)`},
		{"subagents cancel", api.ToolSubagents, `{"action": "cancel", "target": "all"}`, api.SubagentsRequest{Action: "cancel", Target: "all"}, ""},
		{"subagents bad action", api.ToolSubagents, `{"action": "kill"}`, nil, "action must be one of list|cancel"},
		{"runs_wait default", api.ToolRunsWait, `{"runId": "r1"}`, api.WaitRequest{RunID: "r1", Timeout: 30 * time.Second}, ""},
		// A number too large for an int clamps where the limit clamps and is
		// "too large" where it does not — never "negative" (issue 11, finding 9).
		{"runs_wait 1e308", api.ToolRunsWait, `{"runId": "r1", "timeoutSeconds": 1e308}`, api.WaitRequest{RunID: "r1", Timeout: time.Hour}, ""},
		{"send timeout 1e308", api.ToolSessionsSend, `{"sessionKey": "x", "message": "hi", "timeoutSeconds": 1e308}`,
			api.SendRequest{SessionKey: "x", Message: "hi", TimeoutSeconds: ptr(3600)}, ""},
		{"send timeout -1e308", api.ToolSessionsSend, `{"sessionKey": "x", "message": "hi", "timeoutSeconds": -1e308}`, nil, "timeoutSeconds must be at least 0"},
		{"spawn 1e308", api.ToolSessionsSpawn, `{"task": "t", "runTimeoutSeconds": 1e308}`, nil, "runTimeoutSeconds is too large (at most 604800 seconds)"},
		{"unknown tool", "nope", `{}`, nil, "tool not available: nope"},
		// Issue 15 items 3–6.
		{"yield no message", api.ToolSessionsYield, `{}`, api.YieldRequest{}, ""},
		{"yield message", api.ToolSessionsYield, `{"message": "waiting"}`, api.YieldRequest{Message: "waiting"}, ""},
		{"yield message not a string", api.ToolSessionsYield, `{"message": 1}`, nil, "message must be a string"},
		{"yield message too long", api.ToolSessionsYield, `{"message": "` + strings.Repeat("x", int(api.YieldMessageChars.Max)+1) + `"}`, nil, "message is too long"},
		{"yield unknown", api.ToolSessionsYield, `{"timeout": 1}`, nil, `unknown parameter "timeout"`},
		{"status self", api.ToolSessionStatus, `{}`, api.StatusRequest{}, ""},
		{"status alias and model", api.ToolSessionStatus, `{"session_key": "main", "model": "default"}`, api.StatusRequest{SessionKey: "main", Model: "default"}, ""},
		{"status blank model", api.ToolSessionStatus, `{"model": " "}`, nil, "model must not be empty"},
		{"status model too long", api.ToolSessionStatus, `{"model": "` + strings.Repeat("m", int(api.ModelChars.Max)+1) + `"}`, nil, "model is too long"},
		{"status key not a string", api.ToolSessionStatus, `{"sessionKey": ["main"]}`, nil, "sessionKey must be a string"},
		{"send mode steer", api.ToolSessionsSend, `{"sessionKey": "x", "message": "hi", "mode": "steer"}`,
			api.SendRequest{SessionKey: "x", Message: "hi", Mode: "steer"}, ""},
		{"send mode notify", api.ToolSessionsSend, `{"sessionKey": "x", "message": "hi", "mode": "notify"}`,
			api.SendRequest{SessionKey: "x", Message: "hi", Mode: "notify"}, ""},
		{"send bad mode", api.ToolSessionsSend, `{"sessionKey": "x", "message": "hi", "mode": "Steer"}`, nil, "mode must be one of followup|steer|notify"},
		{"send mode not a string", api.ToolSessionsSend, `{"sessionKey": "x", "message": "hi", "mode": 2}`, nil, "mode must be a string"},
		{"spawn fork", api.ToolSessionsSpawn, `{"task": "t", "context": "fork"}`, api.SpawnRequest{Task: "t", Context: "fork"}, ""},
		{"spawn bad context", api.ToolSessionsSpawn, `{"task": "t", "context": "inherit"}`, nil, "context must be one of isolated|fork"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeService{}
			out := Call(context.Background(), f, api.Operator(), tc.tool, json.RawMessage(tc.args))
			if tc.wantErr != "" {
				p, _ := out.Payload.(api.ErrorPayload)
				if !out.IsError || !strings.Contains(p.Error, tc.wantErr) {
					t.Fatalf("outcome = %+v, want an error containing %q", out, tc.wantErr)
				}
				if f.got != nil {
					t.Errorf("the service was called with %+v despite the error", f.got)
				}
				return
			}
			if out.IsError {
				t.Fatalf("outcome = %+v, want success", out)
			}
			if diff := cmp.Diff(tc.want, f.got); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}
		})
	}
}

func ptr(n int) *int { return &n }

func fptr(f float64) *float64 { return &f }
