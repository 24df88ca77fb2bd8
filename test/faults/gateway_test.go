package faults

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// faultConfig is the gateway's config: the offline script model with a
// slow turn, a turn that sends to another session (an agent-to-agent
// exchange with reply-back turns and an announce step), a turn that spawns
// a child with an attachment, and quick children.
const faultConfig = `{
  tools: {
    sessions: { visibility: "all" },
    sessions_spawn: { attachments: { enabled: true } },
  },
  session: { agentToAgent: { maxPingPongTurns: 2 } },
  models: { providers: { script: { rules: [
    { when: { session: ":subagent:" }, reply: "child result", delayMs: 30 },
    { when: { session: "peer", system: "announce" }, reply: "announced" },
    { when: { message: "^slow" }, reply: "slow done", delayMs: 400 },
    { when: { message: "^relay" }, toolCall: { name: "sessions_send", arguments: { sessionKey: "agent:main:peer", message: "ping", timeoutSeconds: 0 } } },
    { when: { message: "^spawn" }, toolCall: { name: "sessions_spawn", arguments: { task: "child work", cleanup: "delete", attachments: [{ name: "a.txt", content: "hello" }] } } },
  ] } } },
}`

// gateway is one running switchboard gateway process.
type gateway struct {
	t      *testing.T
	cmd    *exec.Cmd
	base   string
	dir    string        // its state directory
	exited chan struct{} // closed when the process ended
	err    error         // its Wait error, set before exited closes
	log    *logBuffer
}

// logBuffer keeps a child's stderr and remembers the lines that must fail
// the test (a data race, a panic).
type logBuffer struct {
	mu   sync.Mutex
	all  bytes.Buffer
	bad  []string
	name string
}

func (l *logBuffer) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.all.Write(b)
	for _, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, "DATA RACE") || strings.HasPrefix(line, "panic:") || strings.Contains(line, "fatal error:") {
			l.bad = append(l.bad, line)
		}
	}
	return len(b), nil
}

func (l *logBuffer) check(t *testing.T) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.bad) > 0 {
		t.Fatalf("gateway %s: %s\n%s", l.name, strings.Join(l.bad, "\n"), l.all.String())
	}
}

func writeConfig(t *testing.T, dir, cfg string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "switchboard.json5"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
}

// startGateway runs `switchboard gateway` on dir and returns once it
// listens.
func startGateway(t *testing.T, dir, name string) *gateway {
	t.Helper()
	cmd := exec.Command(binary, "--state-dir", dir, "gateway", "--listen", "127.0.0.1:0")
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SWITCHBOARD_") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	g := &gateway{t: t, cmd: cmd, dir: dir, exited: make(chan struct{}), log: &logBuffer{name: name}}
	cmd.Stderr = g.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { g.err = cmd.Wait(); close(g.exited) }()
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if i := strings.Index(sc.Text(), "listening on "); i >= 0 {
				select {
				case urls <- strings.Fields(sc.Text()[i+len("listening on "):])[0]:
				default:
				}
			}
		}
	}()
	select {
	case g.base = <-urls:
	case <-g.exited:
		t.Fatalf("gateway %s exited before listening: %v\n%s", name, g.err, g.log.all.String())
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("gateway %s did not listen within 60s", name)
	}
	t.Cleanup(func() { g.kill() })
	return g
}

// kill ends the gateway with SIGKILL (no-op when it already ended).
func (g *gateway) kill() {
	_ = g.cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-g.exited:
	case <-time.After(10 * time.Second):
	}
	g.log.check(g.t)
}

// stop ends the gateway with SIGTERM and waits for a clean exit.
func (g *gateway) stop() {
	g.t.Helper()
	_ = g.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-g.exited:
		if g.err != nil {
			g.t.Fatalf("gateway exited with %v after SIGTERM\n%s", g.err, g.log.all.String())
		}
	case <-time.After(8 * time.Second):
		// Before the gateway's own 10 s shutdown limit: what is it stuck on?
		_ = g.cmd.Process.Signal(syscall.SIGQUIT)
		<-g.exited
		g.t.Fatalf("gateway did not stop within 8s of SIGTERM; its goroutines:\n%s", g.log.all.String())
	}
	g.log.check(g.t)
}

var client = &http.Client{Timeout: 30 * time.Second}

// call sends a JSON request and decodes the answer into out (when set);
// it returns the HTTP status (0 when the request failed).
func (g *gateway) call(method, path string, body any, out any) (int, []byte) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, g.base+path, rd)
	if err != nil {
		return 0, nil
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, []byte(err.Error())
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(b, out); err != nil {
			return 0, []byte(fmt.Sprintf("decode %s: %v", b, err))
		}
	}
	return resp.StatusCode, b
}

type chatAnswer struct {
	Run *struct {
		RunID  string `json:"runId"`
		Status string `json:"status"`
	} `json:"run"`
}

type spawnAnswer struct {
	Status          string `json:"status"`
	RunID           string `json:"runId"`
	ChildSessionKey string `json:"childSessionKey"`
}
