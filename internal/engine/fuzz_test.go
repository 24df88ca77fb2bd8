package engine

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
)

// FuzzCallTool feeds arbitrary arguments to every tool: no panic, and
// every outcome is a JSON object (an error outcome says what is wrong).
func FuzzCallTool(f *testing.F) {
	seeds := []string{`{}`, `null`, `[]`, `"x"`, `{"sessionKey":"main","limit":1e309}`, `{"kinds":[1,2]}`,
		`{"sessionKey":"agent:main:x","message":"hi","timeoutSeconds":0}`, `{"task":"t","attachments":[{"name":"a","content":"@@@","encoding":"base64"}]}`,
		`{"sessionKey":"\u0000","message":"\ud800"}`, `{"limit":-0.5,"messageLimit":"3"}`, `{"action":"cancel","target":"all"}`,
		`{"runId":"nope","timeoutSeconds":0}`, `{"label":"","agentId":"../x","message":"m"}`, `{"task":"t","mode":"session","thread":true,"cleanup":"delete"}`}
	for _, s := range seeds {
		for _, tool := range api.AllTools() {
			f.Add(tool, s)
		}
	}
	h := newHarness(f, nil, agentVisibility)
	f.Fuzz(func(t *testing.T, tool, args string) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // never wait: a send or runs_wait returns at once
		out := h.e.callTool(ctx, Requester{}, tool, json.RawMessage(args))
		var obj map[string]any
		if err := json.Unmarshal(out.JSON(), &obj); err != nil {
			t.Fatalf("%s(%q) gave a non-object payload: %s", tool, args, out.JSON())
		}
	})
}
