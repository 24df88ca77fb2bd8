package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/app"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// startGateway runs `switchboard gateway` until the returned stop is
// called; it returns the URL the gateway printed.
func startGateway(t *testing.T, c *cli, args ...string) (url string, stop func() result) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan result, 1)
	go func() {
		var errb bytes.Buffer
		code := Main(ctx, append([]string{"gateway"}, args...), func(k string) string { return c.env[k] }, strings.NewReader(""), pw, &errb)
		pw.Close()
		done <- result{stderr: errb.String(), code: code}
	}()
	lines := make(chan string, 1)
	go func() {
		r := bufio.NewReader(pr)
		line, _ := r.ReadString('\n')
		lines <- line
		_, _ = io.Copy(io.Discard, r)
	}()
	stop = func() result {
		cancel()
		select {
		case r := <-done:
			return r
		case <-time.After(20 * time.Second):
			t.Fatal("gateway did not stop")
			return result{}
		}
	}
	select {
	case line := <-lines:
		const prefix = "switchboard gateway listening on "
		if !strings.HasPrefix(line, prefix) {
			r := stop()
			t.Fatalf("gateway printed %q; exit %d, stderr %s", line, r.code, r.stderr)
		}
		url = strings.Fields(strings.TrimPrefix(line, prefix))[0]
	case <-time.After(20 * time.Second):
		stop()
		t.Fatal("gateway did not start")
	}
	return url, stop
}

func TestGateway(t *testing.T) {
	c := newCLI(t)
	url, stop := startGateway(t, c, "--listen", "127.0.0.1:0")
	resp, err := http.Get(url + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/healthz = %s", resp.Status)
	}
	info, running, err := app.ReadGatewayInfo(c.stateDir())
	if err != nil || !running || info.URL != url || info.PID != os.Getpid() || info.TokenRequired {
		t.Fatalf("gateway.json = %+v running=%v err=%v", info, running, err)
	}
	if r := c.run("gateway", "--listen", "127.0.0.1:0"); r.code != exitError || !strings.Contains(r.stderr, "a gateway already runs") {
		t.Fatalf("second gateway: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := stop(); r.code != 0 {
		t.Fatalf("gateway exit %d, stderr %s", r.code, r.stderr)
	}
	if _, running, _ := app.ReadGatewayInfo(c.stateDir()); running {
		t.Fatal("gateway.json left behind")
	}
	if _, err := os.Stat(app.GatewayFile(c.stateDir())); !os.IsNotExist(err) {
		t.Fatalf("gateway.json still exists: %v", err)
	}
	// The state dir is free again for in-process commands.
	c.ok("sessions", "list")
}

func TestGatewayRefusesOpenListenWithoutToken(t *testing.T) {
	c := newCLI(t)
	r := c.run("gateway", "--listen", "0.0.0.0:0")
	if r.code != exitError || !strings.Contains(r.stderr, "without an auth token") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if _, err := os.Stat(app.GatewayFile(c.stateDir())); !os.IsNotExist(err) {
		t.Fatalf("gateway.json written for a refused listen: %v", err)
	}
}

func TestMCPStdioInProcess(t *testing.T) {
	c := newCLI(t)
	c.writeConfig(`{ tools: { sessions: { visibility: "agent" } } }`)
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sessions_send","arguments":{"sessionKey":"agent:main:research","message":"hi"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`,
	}, "\n") + "\n"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	code := Main(ctx, []string{"mcp", "--session", "main"}, func(k string) string { return c.env[k] }, strings.NewReader(in), &out, &errb)
	if code != 0 {
		t.Fatalf("mcp exit %d, stderr %s", code, errb.String())
	}
	replies := map[int]json.RawMessage{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var msg struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			t.Fatalf("stdout holds a non-JSON-RPC line %q: %v", line, err)
		}
		replies[msg.ID] = msg.Result
	}
	var call struct {
		IsError           bool `json:"isError"`
		StructuredContent struct {
			Status string `json:"status"`
			Reply  string `json:"reply"`
		} `json:"structuredContent"`
	}
	if err := json.Unmarshal(replies[2], &call); err != nil || call.IsError || call.StructuredContent.Status != "ok" || call.StructuredContent.Reply != "echo: hi" {
		t.Fatalf("tools/call = %s (%v)", replies[2], err)
	}
	if !strings.Contains(string(replies[3]), `"sessions_spawn"`) {
		t.Fatalf("tools/list = %s", replies[3])
	}
	// The announce of the send settled before mcp exited.
	runs := jsonOf[struct {
		Runs []domain.Run `json:"runs"`
	}](c, "runs", "list", "--session", "agent:main:research", "--status", "ok", "--json")
	if len(runs.Runs) != 2 {
		t.Fatalf("runs of the target = %+v, want send and announce", runs.Runs)
	}
	if r := c.run("mcp", "--session", "agent::"); r.code != exitError || !strings.Contains(r.stderr, "--session") {
		t.Fatalf("mcp --session malformed: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestStaleGatewayFile: gateway.json naming a live pid (this process) whose
// URL does not answer, while the state dir is free, is ignored.
func TestStaleGatewayFile(t *testing.T) {
	c := newCLI(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	if err := os.MkdirAll(c.stateDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := app.WriteGatewayInfo(c.stateDir(), app.GatewayInfo{URL: dead, WSURL: "ws" + dead[4:] + "/", PID: os.Getpid()}); err != nil {
		t.Fatal(err)
	}
	out := jsonOf[chatOutput](c, "chat", "main", "hi", "--json")
	if out.Reply != "echo: hi" {
		t.Fatalf("chat with a stale gateway.json = %+v", out)
	}
}
