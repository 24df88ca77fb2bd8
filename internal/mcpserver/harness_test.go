package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/engine"
	"github.com/switchboard-go/switchboard/internal/model"
	"github.com/switchboard-go/switchboard/internal/store/sqlite"
	"github.com/switchboard-go/switchboard/internal/testkit"
	"github.com/switchboard-go/switchboard/internal/transcript"
)

// testConfig is a small default config, independent of the config loader.
func testConfig() *config.Config { return testkit.Config() }

// newEngine starts an engine on a fresh SQLite store in a temp dir with
// the script model; visibility sets tools.sessions.visibility.
func newEngine(tb testing.TB, visibility string) *engine.Engine {
	tb.Helper()
	dir := tb.TempDir()
	cfg := testConfig()
	cfg.Tools.Sessions.Visibility = visibility
	models, err := model.NewRegistry(cfg, nil, nil)
	if err != nil {
		tb.Fatal(err)
	}
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(dir, "switchboard.db"), sqlite.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	e, err := engine.New(engine.Options{Config: cfg, Store: st, Models: models,
		Mirror: transcript.New(dir, time.Now), StateDir: dir, MaintenanceInterval: 20 * time.Millisecond})
	if err != nil {
		tb.Fatal(err)
	}
	if err := e.Start(ctx); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := e.Close(ctx); err != nil {
			tb.Errorf("close engine: %v", err)
		}
		st.Close()
	})
	return e
}

// chat puts a user message into a session and waits for its reply, so the
// session exists with a transcript.
func chat(tb testing.TB, e *engine.Engine, key, msg string) {
	tb.Helper()
	ctx := context.Background()
	res, err := e.Chat(ctx, api.Operator(), api.ChatRequest{SessionKey: key, Message: msg})
	if err != nil {
		tb.Fatalf("chat %s: %v", key, err)
	}
	r, err := e.WaitRun(ctx, api.Operator(), api.WaitRequest{RunID: res.Run.ID, Timeout: 10 * time.Second})
	if err != nil || r.Status != domain.RunOK {
		tb.Fatalf("chat %s: run %s %s: %v", key, r.Status, r.Error, err)
	}
}

// operatorAs is the principal of `switchboard mcp --session key`: the
// operator acting as key ("" = the operator's own rights).
func operatorAs(key string) api.Principal { return api.Operator().ActingAs(key) }

// connectStdio runs s.RunStdio over pipes as p and returns a real SDK
// client connected to it. Cleanup closes the client and checks that
// RunStdio returned nil.
func connectStdio(tb testing.TB, s *Server, p api.Principal) *mcp.ClientSession {
	tb.Helper()
	inR, inW := io.Pipe()   // client → server
	outR, outW := io.Pipe() // server → client
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		err := s.RunStdio(ctx, p, inR, outW)
		outW.Close()
		done <- err
	}()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		cancel()
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		defer cancel()
		cs.Close()
		select {
		case err := <-done:
			if err != nil {
				tb.Errorf("RunStdio returned %v after the client closed, want nil", err)
			}
		case <-time.After(10 * time.Second):
			tb.Errorf("RunStdio did not return after the client closed")
		}
	})
	return cs
}

// bearer adds a bearer token to every request.
type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// connectHTTP connects an SDK client to an MCP endpoint with a token.
func connectHTTP(tb testing.TB, url, token string) *mcp.ClientSession {
	tb.Helper()
	tr := &http.Transport{}
	tb.Cleanup(tr.CloseIdleConnections)
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint:             url,
		HTTPClient:           &http.Client{Transport: bearer{token, tr}},
		DisableStandaloneSSE: true,
		MaxRetries:           -1,
	}, nil)
	if err != nil {
		tb.Fatalf("connect %s: %v", url, err)
	}
	tb.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and decodes its structured payload into a map.
func call(tb testing.TB, cs *mcp.ClientSession, name string, args any) (*mcp.CallToolResult, map[string]any) {
	tb.Helper()
	return callMeta(tb, cs, name, args, nil)
}

func callMeta(tb testing.TB, cs *mcp.ClientSession, name string, args any, meta mcp.Meta) (*mcp.CallToolResult, map[string]any) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args, Meta: meta})
	if err != nil {
		tb.Fatalf("tools/call %s: %v", name, err)
	}
	return res, payload(tb, res)
}

// payload returns the structured content of a result, after checking that
// the text content says the same.
func payload(tb testing.TB, res *mcp.CallToolResult) map[string]any {
	tb.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		tb.Fatal(err)
	}
	var structured map[string]any
	if err := json.Unmarshal(b, &structured); err != nil {
		tb.Fatalf("structuredContent %s: %v", b, err)
	}
	if len(res.Content) != 1 {
		tb.Fatalf("content has %d items, want 1 text item", len(res.Content))
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		tb.Fatalf("content[0] is %T, want text", res.Content[0])
	}
	var fromText map[string]any
	if err := json.Unmarshal([]byte(tc.Text), &fromText); err != nil {
		tb.Fatalf("text content is not JSON: %v\n%s", err, tc.Text)
	}
	if a, b := mustJSON(tb, fromText), mustJSON(tb, structured); a != b {
		tb.Fatalf("text content %s != structuredContent %s", a, b)
	}
	return structured
}

func mustJSON(tb testing.TB, v any) string {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// keys returns the session keys of a sessions_list payload.
func keys(tb testing.TB, p map[string]any) []string {
	tb.Helper()
	rows, ok := p["sessions"].([]any)
	if !ok {
		tb.Fatalf("payload has no sessions array: %v", p)
	}
	var out []string
	for _, r := range rows {
		out = append(out, r.(map[string]any)["key"].(string))
	}
	return out
}
