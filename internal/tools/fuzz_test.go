package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
)

// FuzzCall calls every tool with fuzzed arguments through the fake
// service: nothing panics; every outcome is a JSON object; a refused call
// never reaches the service and its error names the parameter at fault
// (or says the arguments as a whole are not an object).
func FuzzCall(f *testing.F) {
	for _, s := range []string{
		`{}`, `null`, `[]`, `"x"`, `1`, `{"limit":1e308}`, `{"limit":-1e308}`, `{"kinds":["main",1]}`,
		`{"sessionKey":"main","message":"hi","timeoutSeconds":1e308}`, `{"runId":"r","timeoutSeconds":-0.5}`,
		`{"task":"t","attachments":[{"name":"../a","content":"x"}]}`, `{"task":"t","attachments":{}}`,
		`{"label":"a\u0000b","message":"m"}`, `{"sessionKey":"\ud800","message":"m"}`, `{"action":"cancel"}`,
		`{"session_key":"main","include_tools":"yes"}`, `{"message":"m","sessionKey":"x","sessionKey":"y"}`,
		`{"task":"t","runTimeoutSeconds":604801,"mode":"session","thread":true}`, `{"task":"t","attachAs":1}`,
		`{"kinds":["a","a","a","a","a","a","a","a","a","a","a","a","a","a","a","a","a"]}`, `{"x":1}`, `{`,
	} {
		for _, tool := range api.AllTools() {
			f.Add(tool, s)
		}
	}
	params := map[string][]string{}
	for _, s := range Specs() {
		var schema struct {
			Properties map[string]any `json:"properties"`
		}
		params[s.Name] = []string{}
		b, _ := json.Marshal(s.InputSchema)
		if err := json.Unmarshal(b, &schema); err != nil {
			f.Fatal(err)
		}
		for name := range schema.Properties {
			params[s.Name] = append(params[s.Name], name)
		}
	}
	f.Fuzz(func(t *testing.T, tool, args string) {
		svc := &fakeService{}
		out := Call(context.Background(), svc, api.Operator(), tool, json.RawMessage(args))
		var obj map[string]any
		if err := json.Unmarshal(out.JSON(), &obj); err != nil {
			t.Fatalf("%s(%q): payload %s is not a JSON object", tool, args, out.JSON())
		}
		if !out.IsError {
			return
		}
		if svc.got != nil {
			t.Fatalf("%s(%q): the fake service answers without error, yet the outcome is one: %s", tool, args, out.JSON())
		}
		msg, _ := obj["error"].(string)
		if msg == "" {
			t.Fatalf("%s(%q): an error outcome without a message: %s", tool, args, out.JSON())
		}
		if _, known := params[tool]; !known {
			if !strings.Contains(msg, "tool not available") {
				t.Fatalf("unknown tool %q: %q", tool, msg)
			}
			return
		}
		if strings.Contains(msg, "parameter") || strings.Contains(msg, "arguments") {
			return
		}
		for _, p := range params[tool] {
			if strings.Contains(msg, p) {
				return
			}
		}
		t.Fatalf("%s(%q): error %q names no parameter (of %v)", tool, args, msg, params[tool])
	})
}
