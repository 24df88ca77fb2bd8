package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
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

// fuzzInit starts the stdio session the fuzzed lines are sent to.
const fuzzInit = `{"jsonrpc":"2.0","id":"fuzz-init","method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}` + "\n" +
	`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"

// stdioSession is one stdio server fed through a pipe; its output lines
// arrive on lines, which closes when the server returns.
type stdioSession struct {
	in    *io.PipeWriter
	lines chan string
	done  chan error
}

func startStdio(srv *Server) *stdioSession {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &stdioSession{in: inW, lines: make(chan string, 256), done: make(chan error, 1)}
	go func() {
		err := srv.RunStdio(context.Background(), operatorAs("main"), inR, outW)
		outW.Close()
		s.done <- err
	}()
	go func() {
		defer close(s.lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
	}()
	return s
}

// stop ends the session at EOF and returns RunStdio's result.
func (s *stdioSession) stop() error {
	s.in.Close()
	for range s.lines {
	}
	return <-s.done
}

// FuzzStdioLine sends arbitrary lines, each followed by a ping, to one
// stdio session: the server never panics, writes only JSON-RPC 2.0
// messages, answers each request (and each line that is not JSON) and
// keeps serving — every ping is answered and RunStdio returns nil at EOF.
// The session lives as long as the target, so an input costs one round
// trip rather than a session.
func FuzzStdioLine(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sessions_list","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"nope","arguments":[]}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"fuzz-ping-1"}}`,
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
	sess := startStdio(New(echoCaller{}, Options{}))
	f.Cleanup(func() {
		if err := sess.stop(); err != nil {
			f.Errorf("RunStdio = %v, want nil at EOF", err)
		}
	})
	if _, err := io.WriteString(sess.in, fuzzInit); err != nil {
		f.Fatal(err)
	}
	seq := 0
	var prev string
	f.Fuzz(func(t *testing.T, fuzzed string) {
		seq++
		defer func() { prev = fuzzed }()
		ping := fmt.Sprintf(`"fuzz-ping-%d"`, seq)
		// The answers this input must get: the ping's, a parse error's
		// (id null) for a line that is not JSON, and a request's own.
		want := map[string]bool{}
		if !strings.Contains(fuzzed, ping[1:len(ping)-1]) {
			// A line that cancels the ping may leave it unanswered.
			want[ping] = true
		}
		if line := strings.Trim(fuzzed, jsonSpace); !strings.ContainsAny(fuzzed, "\n\r") && line != "" {
			if !json.Valid([]byte(line)) {
				want["null"] = true
			} else if msg, err := jsonrpc.DecodeMessage([]byte(line)); err == nil {
				if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
					id, _ := json.Marshal(req.ID.Raw())
					want[string(id)] = true
				}
			}
		}
		if _, err := io.WriteString(sess.in, fuzzed+"\n"+`{"jsonrpc":"2.0","id":`+ping+`,"method":"ping"}`+"\n"); err != nil {
			t.Fatalf("the server stopped reading before %q: %v", fuzzed, err)
		}
		deadline := time.NewTimer(10 * time.Second)
		defer deadline.Stop()
		var out []string
		for len(want) > 0 {
			var l string
			select {
			case got, ok := <-sess.lines:
				if !ok {
					err := <-sess.done
					t.Fatalf("the server stopped serving (%v) after %q (before it: %q); output:\n%s", err, fuzzed, prev, strings.Join(out, "\n"))
				}
				l = got
			case <-deadline.C:
				t.Fatalf("no answer to %v within 10s after %q; output:\n%s", slices.Collect(maps.Keys(want)), fuzzed, strings.Join(out, "\n"))
			}
			out = append(out, l)
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
					delete(want, string(m.ID))
				}
			}
		}
	})
}
