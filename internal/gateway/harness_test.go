package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/engine"
	"github.com/switchboard-go/switchboard/internal/gateway"
	"github.com/switchboard-go/switchboard/internal/model"
	"github.com/switchboard-go/switchboard/internal/store/sqlite"
	"github.com/switchboard-go/switchboard/internal/testkit"
	"github.com/switchboard-go/switchboard/internal/transcript"
)

// testConfig is a default config for tests (independent of the loader).
func testConfig() *config.Config {
	c := testkit.Config()
	c.Agents.List = []config.AgentConfig{{ID: "main", Name: "Main"}, {ID: "work"}}
	c.Runtime.Lanes = config.LaneLimits{Main: 128, Nested: 64, Subagent: 64}
	return c
}

// envOptions adjust a test environment.
type envOptions struct {
	rules  []config.ScriptRule
	token  string
	tokens []config.TokenBinding
	cfg    func(*config.Config)
	opts   func(*gateway.Options)
	// register adds providers to the model registry (fakes).
	register func(*model.Registry)
}

// env is a running gateway over a real engine and SQLite store.
type env struct {
	t     testing.TB
	cfg   *config.Config
	eng   *engine.Engine
	store *sqlite.Store
	srv   *gateway.Server
	url   string // http://127.0.0.1:port
	ws    string // ws://127.0.0.1:port/
	hc    *http.Client
	token string

	gwOnce, engOnce, storeOnce sync.Once
	serveErr                   chan error
}

// slowRule makes the script model answer "slow…" messages after delay.
func slowRule(delayMs int) config.ScriptRule {
	reply := "done slowly"
	return config.ScriptRule{When: config.ScriptWhen{Message: "^slow"}, Reply: &reply, DelayMs: delayMs}
}

func newEnv(t testing.TB, o envOptions) *env {
	t.Helper()
	dir := t.TempDir()
	cfg := testConfig()
	cfg.Models.Providers = map[string]config.ProviderConfig{"script": {Rules: o.rules}}
	if o.cfg != nil {
		o.cfg(cfg)
	}
	models, err := model.NewRegistry(cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.register != nil {
		o.register(models)
	}
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(dir, "switchboard.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := engine.New(engine.Options{Config: cfg, Store: st, Models: models, Mirror: transcript.New(dir, time.Now),
		StateDir: dir, MaintenanceInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.Start(ctx); err != nil {
		t.Fatal(err)
	}
	opts := gateway.Options{Engine: eng, Config: cfg, Token: o.token, Tokens: o.tokens, Version: "test"}
	if o.opts != nil {
		o.opts(&opts)
	}
	srv, err := gateway.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := srv.Listen(ctx, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, cfg: cfg, eng: eng, store: st, srv: srv, token: o.token,
		url: "http://" + ln.Addr().String(), ws: "ws://" + ln.Addr().String() + "/",
		hc: &http.Client{Transport: &http.Transport{}}, serveErr: make(chan error, 1)}
	go func() { e.serveErr <- srv.Serve(context.Background(), ln) }()
	t.Cleanup(e.stop)
	return e
}

// stop shuts the gateway down, then the engine and the store.
func (e *env) stop() {
	e.stopGateway()
	e.stopEngine()
	e.storeOnce.Do(func() {
		e.store.Close()
		e.hc.CloseIdleConnections()
	})
}

// stopGateway shuts the gateway down and checks Serve's result.
func (e *env) stopGateway() {
	e.gwOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		if err := e.srv.Shutdown(ctx); err != nil {
			e.t.Errorf("gateway shutdown: %v", err)
		}
		// A test that ends at once may shut down before Serve started.
		if err := <-e.serveErr; err != nil && !strings.Contains(err.Error(), "after Shutdown") {
			e.t.Errorf("serve returned %v", err)
		}
	})
}

// stopEngine closes the engine (in-flight runs are recorded as aborted).
func (e *env) stopEngine() {
	e.engOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		if err := e.eng.Close(ctx); err != nil {
			e.t.Errorf("engine close: %v", err)
		}
	})
}

// frame is any frame the server sends.
type frame struct {
	Type    string          `json:"type"`
	ID      string          `json:"id"`
	OK      bool            `json:"ok"`
	Payload json.RawMessage `json:"payload"`
	Error   *struct {
		Code      string `json:"code"`
		Message   string `json:"message"`
		Retryable bool   `json:"retryable"`
	} `json:"error"`
	Event string `json:"event"`
	Seq   *int64 `json:"seq"`
}

func (f frame) String() string {
	b, _ := json.Marshal(f)
	return string(b)
}

// decode unmarshals the payload into v.
func (f frame) decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(f.Payload, v); err != nil {
		t.Fatalf("decode payload %s: %v", f.Payload, err)
	}
}

// wsClient is a raw protocol client. A reader goroutine delivers frames
// to a channel; it ends when the connection does.
type wsClient struct {
	t      testing.TB
	c      *websocket.Conn
	frames chan frame
	done   chan struct{}
	err    error // the read error that ended the reader; read after done
	next   int
	// pending holds frames read while looking for something else.
	pending []frame
	// patience is how long wait waits for one frame; zero means 10 s.
	patience time.Duration
}

// dial opens a WebSocket without doing the handshake (the challenge is
// the first frame).
func (e *env) dial(t testing.TB) *wsClient {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, e.ws, &websocket.DialOptions{HTTPClient: e.hc})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	c.SetReadLimit(64 << 20)
	w := &wsClient{t: t, c: c, frames: make(chan frame, 4096), done: make(chan struct{})}
	go w.read()
	t.Cleanup(w.close)
	return w
}

func (w *wsClient) read() {
	defer close(w.done)
	for {
		_, data, err := w.c.Read(context.Background())
		if err != nil {
			w.err = err
			return
		}
		var f frame
		if err := json.Unmarshal(data, &f); err != nil {
			w.err = fmt.Errorf("server sent non-JSON %q: %w", data, err)
			return
		}
		w.frames <- f
	}
}

func (w *wsClient) close() {
	_ = w.c.CloseNow()
	<-w.done
}

// connect dials and performs a handshake with the given connect params
// (defaults filled in), returning the client and the hello-ok payload.
func (e *env) connect(t testing.TB, params map[string]any) (*wsClient, map[string]any) {
	t.Helper()
	w := e.dial(t)
	ch := w.wait(func(f frame) bool { return f.Type == "event" && f.Event == "connect.challenge" })
	var challenge struct {
		Nonce string `json:"nonce"`
		TS    int64  `json:"ts"`
	}
	ch.decode(t, &challenge)
	if challenge.Nonce == "" || challenge.TS == 0 {
		t.Fatalf("challenge = %s", ch.Payload)
	}
	p := map[string]any{"minProtocol": 4, "maxProtocol": 4, "client": map[string]any{"id": "test", "version": "1", "mode": "test", "platform": "linux"},
		"role": "operator"}
	if e.token != "" {
		p["auth"] = map[string]any{"token": e.token}
	}
	for k, v := range params {
		p[k] = v
	}
	res := w.call("connect", p)
	if !res.OK {
		t.Fatalf("connect failed: %s", res)
	}
	var hello map[string]any
	res.decode(t, &hello)
	return w, hello
}

// noIdemKey in a test's params of agent, chat.send or send asks send to
// leave idempotencyKey out (the request OpenClaw's schema refuses).
const noIdemKey = "-"

// send writes a request and returns its id. agent, chat.send and send
// get a fresh idempotencyKey when params do not name one, as OpenClaw's
// schema requires and its clients do.
func (w *wsClient) send(method string, params any) string {
	w.t.Helper()
	w.next++
	id := fmt.Sprintf("%d:%s", w.next, method)
	if p, ok := params.(map[string]any); ok && (method == "agent" || method == "chat.send" || method == "send") {
		switch k, has := p["idempotencyKey"]; {
		case !has:
			q := make(map[string]any, len(p)+1)
			for name, v := range p {
				q[name] = v
			}
			q["idempotencyKey"] = fmt.Sprintf("test-%p-%s", w, id)
			params = q
		case k == noIdemKey:
			q := make(map[string]any, len(p))
			for name, v := range p {
				if name != "idempotencyKey" {
					q[name] = v
				}
			}
			params = q
		}
	}
	w.write(map[string]any{"type": "req", "id": id, "method": method, "params": params})
	return id
}

func (w *wsClient) write(v any) {
	w.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		w.t.Fatal(err)
	}
	w.writeRaw(b)
}

func (w *wsClient) writeRaw(b []byte) {
	w.t.Helper()
	if err := w.tryWriteRaw(b); err != nil {
		w.t.Fatalf("write: %v", err)
	}
}

// tryWriteRaw writes one text frame and returns the write's error, for a
// frame the server may refuse (and close on) before it is all written.
func (w *wsClient) tryWriteRaw(b []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return w.c.Write(ctx, websocket.MessageText, b)
}

// call sends a request and returns its first response.
func (w *wsClient) call(method string, params any) frame {
	w.t.Helper()
	id := w.send(method, params)
	return w.response(id)
}

// response waits for the next response with id.
func (w *wsClient) response(id string) frame {
	w.t.Helper()
	return w.wait(func(f frame) bool { return f.Type == "res" && f.ID == id })
}

// ok calls a method, fails the test unless it succeeds, and decodes the
// payload into out (when not nil).
func (w *wsClient) ok(method string, params any, out any) {
	w.t.Helper()
	res := w.call(method, params)
	if !res.OK {
		w.t.Fatalf("%s failed: %s", method, res)
	}
	if out != nil {
		res.decode(w.t, out)
	}
}

// wait returns the first frame (pending or new) matching pred, keeping
// the others pending, within w.patience (10 seconds unless set).
func (w *wsClient) wait(pred func(frame) bool) frame {
	w.t.Helper()
	for i, f := range w.pending {
		if pred(f) {
			w.pending = append(w.pending[:i:i], w.pending[i+1:]...)
			return f
		}
	}
	patience := w.patience
	if patience == 0 {
		patience = 10 * time.Second
	}
	deadline := time.NewTimer(patience)
	defer deadline.Stop()
	for {
		select {
		case f := <-w.frames:
			if pred(f) {
				return f
			}
			w.pending = append(w.pending, f)
		case <-w.done:
			// The reader has ended: whatever it read is queued.
			for f := range drain(w.frames) {
				if pred(f) {
					return f
				}
				w.pending = append(w.pending, f)
			}
			w.t.Fatalf("connection ended while waiting (%v); pending: %v", w.err, w.pending)
		case <-deadline.C:
			w.t.Fatalf("timed out waiting for a frame; pending: %v", w.pending)
		}
	}
}

// closed waits for the server to close the connection and returns the
// close status and reason.
func (w *wsClient) closed() (websocket.StatusCode, string) {
	w.t.Helper()
	select {
	case <-w.done:
	case <-time.After(10 * time.Second):
		w.t.Fatal("connection was not closed")
	}
	var ce websocket.CloseError
	if errors.As(w.err, &ce) {
		return ce.Code, ce.Reason
	}
	return -1, fmt.Sprint(w.err)
}

// drain yields the frames queued in ch without blocking.
func drain(ch chan frame) func(func(frame) bool) {
	return func(yield func(frame) bool) {
		for {
			select {
			case f := <-ch:
				if !yield(f) {
					return
				}
			default:
				return
			}
		}
	}
}

// do sends an HTTP request with the env's token (when set) and decodes a
// JSON response into out. It returns the status code.
func (e *env) do(t testing.TB, method, path string, body any, out any) int {
	t.Helper()
	return e.doToken(t, e.token, method, path, body, out)
}

func (e *env) doToken(t testing.TB, token, method, path string, body any, out any) int {
	t.Helper()
	var rd io.Reader
	if body != nil {
		switch b := body.(type) {
		case string:
			rd = strings.NewReader(b)
		default:
			raw, err := json.Marshal(b)
			if err != nil {
				t.Fatal(err)
			}
			rd = strings.NewReader(string(raw))
		}
	}
	req, err := http.NewRequest(method, e.url+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := e.hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: decode %q: %v", method, path, b, err)
		}
	}
	return resp.StatusCode
}
