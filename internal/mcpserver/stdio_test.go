package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-go/switchboard/internal/api"
)

// lockedBuffer is a bytes.Buffer safe for the SDK's concurrent writers.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestStdioPipedSession is `printf '…' | switchboard mcp`: the requests
// arrive, then stdin ends at once. Every request still gets its answer
// and RunStdio returns nil.
func TestStdioPipedSession(t *testing.T) {
	e := newEngine(t, "agent")
	chat(t, e, "main", "hello")
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sessions_list","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sessions_history","arguments":{"sessionKey":"main","limit":"x"}}}`,
	}, "\n") + "\n"
	var out lockedBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := New(e, Options{}).RunStdio(ctx, operatorAs("main"), strings.NewReader(in), &out); err != nil {
		t.Fatalf("RunStdio = %v, want nil at EOF", err)
	}
	replies := map[float64]map[string]any{}
	for line := range strings.SplitSeq(strings.TrimSpace(out.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("output line %q: %v", line, err)
		}
		if id, ok := m["id"].(float64); ok {
			replies[id] = m
		}
	}
	for _, id := range []float64{1, 2, 3} {
		if replies[id] == nil {
			t.Fatalf("no reply to request %v; output:\n%s", id, out.String())
		}
	}
	list := replies[2]["result"].(map[string]any)
	if list["isError"] == true || list["structuredContent"].(map[string]any)["count"] != float64(1) {
		t.Errorf("sessions_list reply = %v", list)
	}
	bad := replies[3]["result"].(map[string]any)
	if bad["isError"] != true || !strings.Contains(bad["structuredContent"].(map[string]any)["error"].(string), "limit must be a number") {
		t.Errorf("invalid arguments reply = %v, want isError with the engine's message", bad)
	}
}

// blockingCaller holds every call until its context ends.
type blockingCaller struct{ started chan struct{} }

func (b blockingCaller) CallTool(ctx context.Context, _ api.Principal, name string, args json.RawMessage) api.ToolOutcome {
	close(b.started)
	<-ctx.Done()
	return errorOutcome(ctx.Err())
}

// TestStdioContextEnds: ending ctx stops RunStdio while stdin is still
// open and a tool call is running; the call is cancelled first.
func TestStdioContextEnds(t *testing.T) {
	caller := blockingCaller{started: make(chan struct{})}
	inR, inW := io.Pipe()
	defer inW.Close()
	var out lockedBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- New(caller, Options{}).RunStdio(ctx, operatorAs("main"), inR, &out) }()

	go func() {
		// The pipe closes when RunStdio stops; a failed write is expected then.
		_, _ = io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}`+"\n"+
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sessions_list","arguments":{}}}`+"\n")
	}()
	select {
	case <-caller.started:
	case <-time.After(10 * time.Second):
		t.Fatal("the tool call never reached the caller")
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("RunStdio = %v after ctx ended, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("RunStdio did not return after ctx ended")
	}
}

// TestStdioRefusals is the rule of docs/design.md#parameters-and-errors for MCP over stdio: a line that
// is not JSON gets -32700, a request before initialize gets a JSON-RPC
// error with a standard negative code, and the server keeps serving the
// lines after them.
func TestStdioRefusals(t *testing.T) {
	e := newEngine(t, "agent")
	chat(t, e, "main", "hello")
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`this is not json`,
		`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sessions_list"`,
		`{"id":4,"method":"tools/list"}`,
		`[{"jsonrpc":"2.0","id":5,"method":"tools/list"}]`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"sessions_list","arguments":{}}}`,
	}, "\n") + "\n"
	var out lockedBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := New(e, Options{}).RunStdio(ctx, operatorAs("main"), strings.NewReader(in), &out); err != nil {
		t.Fatalf("RunStdio = %v, want nil at EOF", err)
	}
	type reply struct {
		ID     any            `json:"id"`
		Result map[string]any `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	var replies []reply
	for line := range strings.SplitSeq(strings.TrimSpace(out.String()), "\n") {
		var r reply
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("output line %q: %v", line, err)
		}
		replies = append(replies, r)
	}
	codes := map[string]int{} // id (or "null#n") → error code, 0 for a result
	nulls := 0
	for _, r := range replies {
		k := fmt.Sprint(r.ID)
		if r.ID == nil {
			nulls++
			k = fmt.Sprintf("null#%d", nulls)
		}
		if r.Error != nil {
			codes[k] = r.Error.Code
			if r.Error.Code == 0 || r.Error.Message == "" {
				t.Errorf("reply %v: error %+v, want a negative code and a message", r.ID, r.Error)
			}
		} else {
			codes[k] = 0
		}
	}
	want := map[string]int{
		"1":      -32002, // before initialize
		"null#1": -32700, // not JSON
		"2":      0,      // initialize
		"null#2": -32700, // cut short
		"4":      -32600, // no "jsonrpc":"2.0"
		"null#3": -32600, // a batch in 2025-06-18
		"6":      0,      // still serving
	}
	if diff := cmp.Diff(want, codes); diff != "" {
		t.Errorf("replies by id (-want +got):\n%s\noutput:\n%s", diff, out.String())
	}
	for _, r := range replies {
		if fmt.Sprint(r.ID) == "6" && (r.Result["isError"] == true || r.Result["structuredContent"].(map[string]any)["count"] != float64(1)) {
			t.Errorf("sessions_list after the refusals = %v", r.Result)
		}
	}
}
