package a2a

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/a2a/wire"
	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/engine"
	"github.com/switchboard-go/switchboard/internal/model"
	"github.com/switchboard-go/switchboard/internal/store/sqlite"
	"github.com/switchboard-go/switchboard/internal/testkit"
	"github.com/switchboard-go/switchboard/internal/transcript"
)

// chunkedReply is the answer to messages starting "chunk", streamed in
// pieces of 6 characters 5 ms apart.
const chunkedReply = "the quick brown fox jumps over the lazy dog"

// testConfig: agents main and research on the script model; messages
// starting "slow" take 30 s (until cancelled), "fail" ends in an error,
// "tool" calls agents_list and answers with its result.
func testConfig() *config.Config {
	c := testkit.Config()
	c.Agents.List = []config.AgentConfig{
		{ID: "main", Name: "Main", Description: "the main agent",
			Skills: []config.AgentSkill{{ID: "qa", Name: "Questions", Description: "answers", Tags: []string{"chat"}}}},
		{ID: "research"},
	}
	slow, failMsg, chunked := "done slowly", "the model failed", chunkedReply
	c.Models.Providers = map[string]config.ProviderConfig{"script": {Rules: []config.ScriptRule{
		{When: config.ScriptWhen{Role: "user", Message: "^slow"}, Reply: &slow, DelayMs: 30_000},
		{When: config.ScriptWhen{Role: "user", Message: "^fail"}, Error: &failMsg},
		{When: config.ScriptWhen{Role: "user", Message: "^tool"}, ToolCall: &config.ScriptToolCall{Name: "agents_list"}},
		{When: config.ScriptWhen{Role: "user", Message: "^chunk"}, Reply: &chunked, ChunkChars: 6, ChunkMs: 5},
	}}}
	return c
}

// openEngine starts an engine on the SQLite store in dir.
func openEngine(tb testing.TB, dir string) *engine.Engine {
	tb.Helper()
	e, _ := openEngineCloser(tb, dir)
	return e
}

// openEngineCloser is openEngine with a close function (a restart); the
// test's cleanup closes it when the test did not.
func openEngineCloser(tb testing.TB, dir string) (*engine.Engine, func()) {
	tb.Helper()
	return openEngineWith(tb, dir, nil)
}

// openEngineWith is openEngineCloser with testConfig changed by mutate.
func openEngineWith(tb testing.TB, dir string, mutate func(*config.Config)) (*engine.Engine, func()) {
	tb.Helper()
	cfg := testConfig()
	if mutate != nil {
		mutate(cfg)
	}
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
	var once sync.Once
	closeFn := func() {
		once.Do(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := e.Close(ctx); err != nil {
				tb.Errorf("close engine: %v", err)
			}
			st.Close()
		})
	}
	tb.Cleanup(closeFn)
	return e, closeFn
}

// Test credentials: the header X-Test-Principal picks one.
var principals = map[string]api.Principal{
	"operator": api.Operator(),
	"reader":   {Name: "reader", Scopes: api.ScopeRead},
	"bound":    {Name: "bound", Scopes: api.ScopeRead | api.ScopeWrite, Session: "agent:main:main"},
	"alice":    {Name: "alice", Scopes: api.ScopeRead | api.ScopeWrite, Session: "agent:main:alice"},
	"bob":      {Name: "bob", Scopes: api.ScopeRead | api.ScopeWrite, Session: "agent:main:bob"},
	"writer":   {Name: "writer", Scopes: api.ScopeRead | api.ScopeWrite},
	"writer2":  {Name: "writer2", Scopes: api.ScopeRead | api.ScopeWrite},
}

// harness is an A2A server on an engine, over loopback HTTP.
type harness struct {
	eng *engine.Engine
	srv *httptest.Server
	a2a *Server
}

func newHarness(tb testing.TB) *harness {
	tb.Helper()
	return newHarnessOn(tb, openEngine(tb, tb.TempDir()))
}

func newHarnessOn(tb testing.TB, eng *engine.Engine) *harness {
	cfg := testConfig()
	h := &harness{eng: eng}
	h.a2a = New(Options{
		Service: eng,
		Agents: func() []Agent {
			var out []Agent
			for _, a := range cfg.Agents.List {
				ag := Agent{ID: a.ID, Name: a.Name, Description: a.Description, Public: len(out) == 0}
				for _, s := range a.Skills {
					ag.Skills = append(ag.Skills, wire.AgentSkill{ID: s.ID, Name: s.Name, Description: s.Description, Tags: s.Tags})
				}
				out = append(out, ag)
			}
			return out
		},
		Principal: func(r *http.Request) (api.Principal, bool) {
			p, ok := principals[r.Header.Get("X-Test-Principal")]
			return p, ok
		},
		Version: "test",
	})
	h.srv = httptest.NewServer(h.a2a)
	tb.Cleanup(h.srv.Close)
	return h
}

// rpcResult is a decoded JSON-RPC answer.
type rpcResult struct {
	status int
	resp   wire.Response
}

func (r rpcResult) code() int {
	if r.resp.Error == nil {
		return 0
	}
	return r.resp.Error.Code
}

// rpc posts one JSON-RPC request as who to agent.
func (h *harness) rpc(tb testing.TB, who, agent, method string, params any, hdr ...string) rpcResult {
	tb.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
	if strings.Contains(method, "/") {
		hdr = append([]string{wire.VersionHeader, "0.3"}, hdr...)
	}
	return h.post(tb, who, agent, body, hdr...)
}

func (h *harness) post(tb testing.TB, who, agent string, body []byte, hdr ...string) rpcResult {
	tb.Helper()
	req, _ := http.NewRequest(http.MethodPost, h.srv.URL+AgentsPrefix+agent, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(wire.VersionHeader, "1.0")
	if who != "" {
		req.Header.Set("X-Test-Principal", who)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := h.srv.Client().Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var out rpcResult
	out.status = res.StatusCode
	if err := json.Unmarshal(b, &out.resp); err != nil {
		tb.Fatalf("%s: answer is not JSON-RPC (%d): %s", agent, res.StatusCode, b)
	}
	return out
}

// stream posts a streaming request and returns its events (the results,
// or an error event) until the server closes the stream.
func (h *harness) stream(tb testing.TB, who, agent, method string, params any) (int, []wire.Response) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return h.streamCtx(ctx, tb, who, agent, method, params, nil)
}

// streamCtx is stream with a context and a callback for each event as it
// arrives (to act mid-stream).
func (h *harness) streamCtx(ctx context.Context, tb testing.TB, who, agent, method string, params any, each func(wire.Response)) (int, []wire.Response) {
	tb.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "s1", "method": method, "params": params})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, h.srv.URL+AgentsPrefix+agent, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("X-Test-Principal", who)
	res, err := h.srv.Client().Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer res.Body.Close()
	if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		var r wire.Response
		b, _ := io.ReadAll(res.Body)
		if err := json.Unmarshal(b, &r); err != nil {
			tb.Fatalf("not a stream and not JSON-RPC: %s", b)
		}
		return res.StatusCode, []wire.Response{r}
	}
	var out []wire.Response
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var r wire.Response
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			tb.Fatalf("event is not JSON-RPC: %s", line)
		}
		out = append(out, r)
		if each != nil {
			each(r)
		}
	}
	if ctx.Err() != nil {
		tb.Fatalf("stream did not end: %v (events %d)", ctx.Err(), len(out))
	}
	return res.StatusCode, out
}

func userMsg(id, ctxID, text string) map[string]any {
	m := map[string]any{"messageId": id, "role": "ROLE_USER", "parts": []any{map[string]any{"text": text}}}
	if ctxID != "" {
		m["contextId"] = ctxID
	}
	return m
}

func decode[T any](tb testing.TB, raw json.RawMessage) T {
	tb.Helper()
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		tb.Fatalf("decode %T: %v: %s", v, err, raw)
	}
	return v
}

func textOf(ps []wire.Part) string {
	var b strings.Builder
	for _, p := range ps {
		if p.Text != nil {
			b.WriteString(*p.Text)
		}
	}
	return b.String()
}
