package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/switchboard-go/switchboard/internal/api"
)

// echoCaller answers every tool call at once with its arguments.
type echoCaller struct{}

func (echoCaller) CallTool(_ context.Context, _ api.Principal, name string, args json.RawMessage) api.ToolOutcome {
	return api.ToolOutcome{Payload: map[string]any{"tool": name, "bytes": len(args)}}
}

// fuzzInit and fuzzPing frame the fuzzed line: a session is initialized
// before it, and a ping after it must still be answered.
const (
	fuzzInit = `{"jsonrpc":"2.0","id":"fuzz-init","method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"
	fuzzPing = `{"jsonrpc":"2.0","id":"fuzz-final-ping","method":"ping"}` + "\n"
)

// FuzzStdioLine sends one arbitrary line to the stdio server, between an
// initialize and a ping: the server never panics, writes only JSON-RPC
// 2.0 messages, answers a request (or a line that is not JSON) and keeps
// serving — the final ping is answered and RunStdio returns nil at EOF.
func FuzzStdioLine(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sessions_list","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"nope","arguments":[]}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"fuzz-final-ping"}}`,
		`{"jsonrpc":"2.0","id":4,"method":"initialize","params":{}}`,
		`[{"jsonrpc":"2.0","id":5,"method":"ping"}]`, `[]`, `{}`, `null`, `42`, `"x"`,
		`{"jsonrpc":"2.0","id":{},"method":"x"}`, `{"jsonrpc":"1.0","id":6,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":7,"result":{}}`, `{"jsonrpc":"2.0","id":8,"error":{"code":1,"message":"m"}}`,
		`not json`, `{"jsonrpc":"2.0","id":9,`, "\x00\xff", `{"jsonrpc":"2.0","id":1e999,"method":"ping"}`,
		"\f", "\f" + `{"jsonrpc":"2.0","id":12,"method":"ping"}`, "\u00a0",
		`{"jsonrpc":"2.0","id":13,"method":3,"method":"ng"}`, `{"jsonrpc":"2.0","id":14.5,"method":"ng"}`,
		`{"jsonrpc":"2.0","id":15,"method":"tools/list","params":[]}`,
		`{"jsonrpc":"2.0","id":10,"method":"resources/list"}`, `{"jsonrpc":"2.0","id":11,"method":"logging/setLevel","params":{"level":"debug"}}`,
	} {
		f.Add(s)
	}
	srv := New(echoCaller{}, Options{})
	f.Fuzz(func(t *testing.T, fuzzed string) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var out lockedBuffer
		in := fuzzInit + fuzzed + "\n" + fuzzPing
		if err := srv.RunStdio(ctx, operatorAs("main"), strings.NewReader(in), &out); err != nil {
			t.Fatalf("RunStdio = %v, want nil at EOF", err)
		}
		if ctx.Err() != nil {
			t.Fatalf("RunStdio did not finish in time; output:\n%s", out.String())
		}
		answered := map[string]bool{}
		for l := range strings.SplitSeq(strings.TrimSpace(out.String()), "\n") {
			var batch []json.RawMessage
			if json.Unmarshal([]byte(l), &batch) != nil {
				batch = []json.RawMessage{json.RawMessage(l)}
			}
			for _, raw := range batch {
				var m struct {
					JSONRPC string          `json:"jsonrpc"`
					ID      json.RawMessage `json:"id"`
					Method  string          `json:"method"`
				}
				if err := json.Unmarshal(raw, &m); err != nil || m.JSONRPC != "2.0" {
					t.Fatalf("output line %q is not a JSON-RPC 2.0 message (%v)", l, err)
				}
				// Error codes are not checked: the SDK answers a duplicate
				// initialize and a request cancelled by the client with
				// code 0 (reported; the gate's own answers are checked by
				// TestGateAdmission).
				if m.Method == "" {
					answered[string(m.ID)] = true
				}
			}
		}
		if !answered[`"fuzz-final-ping"`] && !strings.Contains(fuzzed, "fuzz-final-ping") {
			t.Fatalf("the ping after %q was not answered; output:\n%s", fuzzed, out.String())
		}
		line := strings.Trim(fuzzed, jsonSpace)
		if strings.ContainsAny(fuzzed, "\n\r") || line == "" {
			return
		}
		if !json.Valid([]byte(line)) {
			if !answered["null"] {
				t.Fatalf("no parse error for %q; output:\n%s", fuzzed, out.String())
			}
			return
		}
		msg, err := jsonrpc.DecodeMessage([]byte(line))
		if err != nil {
			return // answered with invalid request, id when it has a usable one
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			id, _ := json.Marshal(req.ID.Raw())
			if !answered[string(id)] {
				t.Fatalf("request %q got no answer; output:\n%s", fuzzed, out.String())
			}
		}
	})
}
