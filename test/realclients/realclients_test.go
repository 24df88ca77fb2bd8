package realclients

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-go/switchboard/internal/testkit"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

const token = "realclients-token"

// gateway runs `switchboard gateway` on a free loopback port with a token
// and returns its base URL; it is stopped with SIGTERM when the test ends.
func gateway(t *testing.T, stateDir string) string {
	t.Helper()
	return testkit.StartGateway(t, testkit.GatewayOptions{Dir: stateDir, Token: token}).URL
}

// bearer adds the gateway token to every request.
type bearer struct{ next http.RoundTripper }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+token)
	return b.next.RoundTrip(r)
}

// exercise lists the tools and calls sessions_send and sessions_list
// through an MCP client session.
func exercise(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tl := range tools.Tools {
		names[tl.Name] = true
	}
	for _, want := range []string{"sessions_list", "sessions_history", "sessions_send", "sessions_spawn", "agents_list", "subagents", "runs_wait"} {
		if !names[want] {
			t.Errorf("tools/list lacks %s (got %v)", want, names)
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sessions_send", Arguments: map[string]any{"sessionKey": "main", "message": "hello over mcp"}})
	if err != nil {
		t.Fatal(err)
	}
	sc, _ := json.Marshal(res.StructuredContent)
	if res.IsError || !strings.Contains(string(sc), `"reply":"echo: hello over mcp"`) {
		t.Fatalf("sessions_send = isError %v %s", res.IsError, sc)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "sessions_list", Arguments: map[string]any{"limit": 10, "messageLimit": 20}})
	if err != nil {
		t.Fatal(err)
	}
	sc, _ = json.Marshal(res.StructuredContent)
	if res.IsError || !strings.Contains(string(sc), `"key":"main"`) || !strings.Contains(string(sc), "hello over mcp") {
		t.Fatalf("sessions_list = %s", sc)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "sessions_list", Arguments: map[string]any{"limit": "ten"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError {
		t.Fatalf("a bad argument was not an isError result")
	}
}

func TestGoSDKClientStdio(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(testkit.Binary(t), "mcp", "--state-dir", dir)
	cmd.Stderr = os.Stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "realclients", Version: "1"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	exercise(t, cs)
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
}

func TestGoSDKClientHTTP(t *testing.T) {
	base := gateway(t, t.TempDir())
	hc := &http.Client{Transport: bearer{http.DefaultTransport}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "realclients", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	exercise(t, cs)
	cs.Close()
	// Without the token the endpoint refuses.
	resp, err := http.Post(base+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no token: %d", resp.StatusCode)
	}
}

// inspector returns how to run the MCP Inspector CLI, or skips.
func inspector(t *testing.T) (string, []string) {
	t.Helper()
	testkit.RealClients(t, "set SWITCHBOARD_REAL_CLIENTS=1 to run the MCP Inspector CLI (installed by .ci/run)")
	bin := testkit.NPMBin(t, "mcp-inspector")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("MCP Inspector not installed (run .ci/run, or npm ci in test/realclients): %v", err)
	}
	return bin, testkit.NodeEnv(t, t.TempDir(), "NO_COLOR=1")
}

func runInspector(t *testing.T, bin string, env []string, args ...string) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("mcp-inspector %v: %v\nstdout: %s\nstderr: %s", args, err, stdout.String(), stderr.String())
	}
	out := stdout.String()
	i := strings.Index(out, "{")
	var v map[string]any
	if i < 0 || json.Unmarshal([]byte(out[i:]), &v) != nil {
		t.Fatalf("mcp-inspector %v printed no JSON: %s\nstderr: %s", args, out, stderr.String())
	}
	return v
}

func checkInspector(t *testing.T, bin string, env []string, target []string) {
	t.Helper()
	list := runInspector(t, bin, env, append(append([]string{}, target...), "--method", "tools/list")...)
	tools, _ := list["tools"].([]any)
	if len(tools) < 7 {
		t.Fatalf("tools/list = %v", list)
	}
	call := runInspector(t, bin, env, append(append([]string{}, target...), "--method", "tools/call", "--tool-name", "sessions_send",
		"--tool-arg", "sessionKey=main", "message=hi inspector")...)
	sc, _ := json.Marshal(call["structuredContent"])
	if call["isError"] == true || !strings.Contains(string(sc), "echo: hi inspector") {
		t.Fatalf("tools/call sessions_send = %v", call)
	}
	call = runInspector(t, bin, env, append(append([]string{}, target...), "--method", "tools/call", "--tool-name", "sessions_list", "--tool-arg", "limit=10")...)
	sc, _ = json.Marshal(call["structuredContent"])
	if !strings.Contains(string(sc), `"count":1`) {
		t.Fatalf("tools/call sessions_list = %v", call)
	}
}

// checkInspectorResources lists the sessions as resources and reads one
// with the Inspector CLI, after checkInspector's chat created it.
func checkInspectorResources(t *testing.T, bin string, env []string, target []string) {
	t.Helper()
	list := runInspector(t, bin, env, append(append([]string{}, target...), "--method", "resources/list")...)
	rs, _ := list["resources"].([]any)
	if len(rs) != 1 {
		t.Fatalf("resources/list = %v, want the one session", list)
	}
	uri, _ := rs[0].(map[string]any)["uri"].(string)
	if !strings.HasPrefix(uri, "switchboard://session/") {
		t.Fatalf("resource uri %q", uri)
	}
	read := runInspector(t, bin, env, append(append([]string{}, target...), "--method", "resources/read", "--uri", uri)...)
	b, _ := json.Marshal(read["contents"])
	if !strings.Contains(string(b), "hi inspector") || !strings.Contains(string(b), "text/markdown") {
		t.Fatalf("resources/read %s = %s", uri, b)
	}
}

func TestInspectorStdio(t *testing.T) {
	bin, env := inspector(t)
	target := []string{"--cli", testkit.Binary(t), "mcp", "--state-dir", t.TempDir()}
	checkInspector(t, bin, env, target)
	checkInspectorResources(t, bin, env, target)
}

func TestInspectorHTTP(t *testing.T) {
	bin, env := inspector(t)
	base := gateway(t, t.TempDir())
	target := []string{"--cli", "--transport", "http", "--server-url", base + "/mcp", "--header", "Authorization: Bearer " + token}
	checkInspector(t, bin, env, target)
	checkInspectorResources(t, bin, env, target)
}

// TestInspectorSubscribe subscribes to a session resource with the
// Inspector's connection CLI (mcpdo, protocol 2026-07-28's
// subscriptions/listen over the gateway's stateless /mcp) and checks that
// a chat in that session is announced as notifications/resources/updated.
func TestInspectorSubscribe(t *testing.T) {
	bin, env := inspector(t)
	mcpdo := filepath.Join(filepath.Dir(bin), "mcpdo")
	base := gateway(t, t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, mcpdo, args...)
		cmd.Env = env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("mcpdo %v: %v\nstdout: %s\nstderr: %s", args, err, stdout.String(), stderr.String())
		}
		return stdout.String()
	}
	// A private daemon for this test, stopped when it ends.
	for _, line := range strings.Split(run("private"), "\n") {
		if kv, ok := strings.CutPrefix(strings.TrimSpace(line), "export "); ok {
			k, v, _ := strings.Cut(kv, "=")
			env = append(env, k+"="+strings.Trim(v, `'"`))
		}
	}
	run("connect", "--transport", "http", "--header", "Authorization: Bearer "+token, "--era", "modern", base+"/mcp")
	t.Cleanup(func() {
		cmd := exec.Command(mcpdo, "daemon", "stop")
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("mcpdo daemon stop: %v: %s", err, out)
		}
	})
	// The session exists before it is subscribed to.
	send(t, base, "first")

	uri := "switchboard://session/main"
	sub := exec.CommandContext(ctx, mcpdo, "--format", "json", "--connection", base+"/mcp", "resources/subscribe", uri)
	sub.Env = env
	sub.Stderr = os.Stderr
	out, err := sub.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := sub.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = sub.Process.Kill()
		_ = sub.Wait()
	}()
	lines := make(chan map[string]any, 64)
	go func() {
		defer close(lines)
		dec := json.NewDecoder(out)
		for {
			var v map[string]any
			if dec.Decode(&v) != nil {
				return
			}
			lines <- v
		}
	}()
	next := func(want string) map[string]any {
		t.Helper()
		for {
			select {
			case v, ok := <-lines:
				if !ok {
					t.Fatalf("mcpdo resources/subscribe ended before %s", want)
				}
				if v["type"] == want {
					return v
				}
			case <-ctx.Done():
				t.Fatalf("mcpdo resources/subscribe printed no %s", want)
			}
		}
	}
	next("subscribed")
	send(t, base, "second")
	if v := next("resources/updated"); v["uri"] != uri {
		t.Fatalf("updated %v, want %s", v, uri)
	}
}

// send is a sessions_send to main through the gateway's HTTP API.
func send(t *testing.T, base, msg string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, base+"/api/tools/sessions_send",
		strings.NewReader(`{"sessionKey":"main","message":"`+msg+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("sessions_send: %s", resp.Status)
	}
}
