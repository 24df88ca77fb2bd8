package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-go/switchboard/internal/testkit"
)

// surface names one of the six ways to reach switchboard.
type surface string

// The surfaces.
const (
	sCLI      surface = "cli-inproc"
	sCLIGW    surface = "cli-gateway"
	sHTTP     surface = "http"
	sWS       surface = "ws"
	sMCPStdio surface = "mcp-stdio"
	sMCPHTTP  surface = "mcp-http"
	// sA2A is the A2A JSON-RPC endpoint of an agent (/a2a/agents/<id>),
	// where SendMessage is a chat, GetTask runs.get, CancelTask
	// runs.cancel.
	sA2A surface = "a2a"
)

// cliResult is one CLI command's exit status and output.
type cliResult struct {
	ok     bool
	exit   int
	stdout string
	msg    string // stderr, trimmed
}

// cli runs the binary on a state dir. Commands on the in-process state dir
// run one at a time (one engine per state dir).
func (w *world) cli(t *testing.T, dir string, args ...string) cliResult {
	t.Helper()
	if dir == w.inproc {
		w.cliMu.Lock()
		defer w.cliMu.Unlock()
	}
	return w.cliUnlocked(t, dir, args...)
}

// cliUnlocked is cli for a caller that holds cliMu (a sequence of
// in-process commands no other command may come between).
func (w *world) cliUnlocked(t *testing.T, dir string, args ...string) cliResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, testkit.Binary(t), append([]string{"--state-dir", dir}, args...)...)
	cmd.Env = testkit.CleanEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	exit := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		exit = ee.ExitCode()
	case err != nil:
		t.Fatalf("switchboard %s: %v", strings.Join(args, " "), err)
	}
	if ctx.Err() != nil {
		t.Fatalf("switchboard %s: no answer within 60s", strings.Join(args, " "))
	}
	if strings.Contains(stderr.String(), "DATA RACE") {
		t.Errorf("switchboard %s: the race detector fired:\n%s", strings.Join(args, " "), stderr.String())
	}
	return cliResult{ok: exit == 0, exit: exit, stdout: stdout.String(), msg: withoutLogLines(stderr.String())}
}

// cliOutcome runs a CLI command with --json on the state dir of surface s
// (sCLI: no gateway; sCLIGW: through the gateway) and normalises it.
func (w *world) cliOutcome(t *testing.T, s surface, args ...string) outcome {
	t.Helper()
	r := w.cli(t, w.dirOf(s), append(args, "--json")...)
	return fromCLI(r.exit, r.stdout, r.msg)
}

// dirOf is the state dir a CLI surface runs on.
func (w *world) dirOf(s surface) string {
	if s == sCLI {
		return w.inproc
	}
	return w.served
}

// httpDo calls the HTTP API with a bearer token; body is JSON-encoded
// unless nil. Extra headers are name, value pairs.
func (w *world) httpDo(t *testing.T, token, method, path string, body any, headers ...string) (int, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, w.base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp.StatusCode, b
}

// httpOutcome calls the HTTP API and normalises the answer.
func (w *world) httpOutcome(t *testing.T, token, method, path string, body any, headers ...string) outcome {
	t.Helper()
	st, b := w.httpDo(t, token, method, path, body, headers...)
	return fromHTTP(st, b)
}

// httpTool calls POST /api/tools/{name}; as names the requester ("" =
// none). A tool answer {isError, result} is a tool outcome; an HTTP error
// is an HTTP outcome.
func (w *world) httpTool(t *testing.T, token, as, name string, args any) outcome {
	t.Helper()
	var hdr []string
	if as != "" {
		hdr = []string{"X-Switchboard-As", as}
	}
	st, b := w.httpDo(t, token, http.MethodPost, "/api/tools/"+name, args, hdr...)
	if st < 200 || st >= 300 {
		return fromHTTP(st, b)
	}
	var r struct {
		IsError *bool           `json:"isError"`
		Result  json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(b, &r); err != nil || r.IsError == nil {
		return outcome{OK: true, Code: "", Msg: "not a tool answer {isError, result}", Status: statusOf(b), Payload: string(b)}
	}
	return fromTool(*r.IsError, r.Result)
}

// wsFor returns the shared WS client of a token, connecting it once.
func (w *world) wsFor(t *testing.T, token string) *wsClient {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	if c, ok := w.ws[token]; ok {
		return c
	}
	c, err := dialWS(deadline(t, 30*time.Second), w.base, token)
	if err != nil {
		t.Fatalf("WS connect: %v", err)
	}
	w.ws[token] = c
	return c
}

// wsOutcome calls a WS method as token's client and normalises the answer.
func (w *world) wsOutcome(t *testing.T, token, method string, params any) outcome {
	t.Helper()
	f, err := w.wsFor(t, token).call(deadline(t, 60*time.Second), method, params)
	if err != nil {
		t.Fatalf("WS %s: %v", method, err)
	}
	return fromWS(f)
}

// wsTool calls tools.invoke; sessionKey names the requester ("" = none).
// The answer {ok, result} is a tool outcome; an error response is a WS
// outcome.
func (w *world) wsTool(t *testing.T, token, sessionKey, tool string, args any) outcome {
	t.Helper()
	params := map[string]any{"name": tool, "args": args}
	if sessionKey != "" {
		params["sessionKey"] = sessionKey
	}
	f, err := w.wsFor(t, token).call(deadline(t, 60*time.Second), "tools.invoke", params)
	if err != nil {
		t.Fatalf("WS tools.invoke: %v", err)
	}
	if !f.OK {
		return fromWS(f)
	}
	var r struct {
		OK     *bool           `json:"ok"`
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(f.Payload, &r); err != nil || r.OK == nil {
		return outcome{OK: true, Msg: "not a tools.invoke answer {ok, result}", Payload: string(f.Payload)}
	}
	return fromTool(!*r.OK, r.Result)
}

// mcpHTTPFor returns the shared MCP client session over /mcp of a token.
func (w *world) mcpHTTPFor(t *testing.T, token string) *mcp.ClientSession {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	if s, ok := w.mcpHTTP[token]; ok {
		return s
	}
	hc := &http.Client{Transport: bearer{token: token, next: http.DefaultTransport}}
	s, err := mcp.NewClient(&mcp.Implementation{Name: "conformance", Version: "1"}, nil).Connect(deadline(t, 30*time.Second),
		&mcp.StreamableClientTransport{Endpoint: w.base + "/mcp", HTTPClient: hc, DisableStandaloneSSE: true, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("MCP over HTTP connect: %v", err)
	}
	w.mcpHTTP[token] = s
	return s
}

// mcpStdioFor returns the shared `switchboard mcp --session KEY` client of
// the served state dir; ok is false (with the reason) when it would not
// start, which is how a refused --session may show.
func (w *world) mcpStdioFor(t *testing.T, session string) (*mcp.ClientSession, error) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	if s, ok := w.mcpStdio[session]; ok {
		return s, nil
	}
	if err, ok := w.stdioErr[session]; ok {
		return nil, err
	}
	args := []string{"--state-dir", w.served, "mcp"}
	if session != "" {
		args = append(args, "--session", session)
	}
	cmd := exec.Command(testkit.Binary(t), args...)
	cmd.Env = testkit.CleanEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &lockedBuffer{b: &stderr}
	s, err := mcp.NewClient(&mcp.Implementation{Name: "conformance", Version: "1"}, nil).Connect(deadline(t, 30*time.Second),
		&mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		err = fmt.Errorf("%w (stderr: %s)", err, strings.TrimSpace(cmd.Stderr.(*lockedBuffer).String()))
		w.stdioErr[session] = err
		return nil, err
	}
	w.mcpStdio[session] = s
	return s, nil
}

// mcpCall calls a tool on an MCP client session and normalises the answer.
func mcpCall(t *testing.T, s *mcp.ClientSession, tool string, args any) outcome {
	t.Helper()
	res, err := s.CallTool(deadline(t, 60*time.Second), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return fromMCPError(err)
	}
	payload, _ := json.Marshal(res.StructuredContent)
	if res.StructuredContent == nil {
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				payload = []byte(tc.Text)
				break
			}
		}
	}
	o := fromTool(res.IsError, payload)
	// An error result names its code in _meta too; it must agree with
	// the payload's.
	if code, _ := res.Meta["switchboard/code"].(string); res.IsError && code != "" {
		if o.Code != codeToolError && o.Code != code {
			o.Msg += fmt.Sprintf(" | _meta code %q disagrees with the payload's %q", code, o.Code)
		}
		o.Code = code
	}
	return o
}

// mcpHTTPOutcome calls a tool over /mcp with a token.
func (w *world) mcpHTTPOutcome(t *testing.T, token, tool string, args any) outcome {
	t.Helper()
	return mcpCall(t, w.mcpHTTPFor(t, token), tool, args)
}

// mcpStdioOutcome calls a tool through `switchboard mcp --session KEY`.
func (w *world) mcpStdioOutcome(t *testing.T, session, tool string, args any) outcome {
	t.Helper()
	s, err := w.mcpStdioFor(t, session)
	if err != nil {
		return outcome{Code: codeFailed, Msg: err.Error(), Payload: err.Error()}
	}
	return mcpCall(t, s, tool, args)
}

// bearer adds a token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// withoutLogLines is a CLI's stderr without the log records its engine
// wrote there (an in-process command runs the outbox too, whose retries
// of the rows' unreachable Telegram bot are logged): what is left is the
// command's own message.
func withoutLogLines(stderr string) string {
	var keep []string
	for line := range strings.SplitSeq(stderr, "\n") {
		if !strings.HasPrefix(line, "time=") {
			keep = append(keep, line)
		}
	}
	return strings.TrimSpace(strings.Join(keep, "\n"))
}
