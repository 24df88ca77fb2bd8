package testkit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Limits of a gateway's life in a test.
const (
	// ReadyWithin bounds the wait for a started gateway to listen (a
	// -race binary on a loaded machine is slow to start).
	ReadyWithin = 60 * time.Second
	// StopWithin bounds a SIGTERM'd gateway's clean exit; past it the
	// gateway is sent SIGQUIT so the failure shows its goroutines.
	StopWithin = 20 * time.Second
)

// GatewayOptions say how to start a gateway.
type GatewayOptions struct {
	// Name names the gateway in failures (default "gateway").
	Name string
	// Dir is the state dir (default a new t.TempDir()).
	Dir string
	// Config, when set, is written to Dir/switchboard.json5 first.
	Config string
	// Listen is the address (default 127.0.0.1:0, a free port).
	Listen string
	// Token is the gateway token (SWITCHBOARD_GATEWAY_TOKEN); Do sends
	// it as a bearer token.
	Token string
	// Env is added to the process's environment (KEY=VALUE).
	Env []string
	// KillAtEnd ends the gateway with SIGKILL when the test ends, for
	// tests that kill gateways themselves; by default it gets SIGTERM and
	// must exit cleanly.
	KillAtEnd bool
}

// Gateway is a running `switchboard gateway` process.
type Gateway struct {
	// URL is the base URL it listens on (http://127.0.0.1:PORT).
	URL string
	// Dir is its state dir.
	Dir string

	t      testing.TB
	opts   GatewayOptions
	cmd    *exec.Cmd
	exited chan struct{} // closed once the process was waited for
	err    error         // its Wait error, set before exited closes
	log    *Log
	ended  atomic.Bool // the test ended it (Kill, Stop)
}

// CleanEnv is the caller's environment without its SWITCHBOARD_*
// variables, so a developer's own settings cannot leak into the
// processes a test starts.
func CleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SWITCHBOARD_") {
			env = append(env, kv)
		}
	}
	return env
}

// StartGateway runs `switchboard gateway` and returns once it prints the
// address it listens on. A race report or a panic in its log fails the
// test; its whole log is printed when the test failed.
func StartGateway(t testing.TB, opts GatewayOptions) *Gateway {
	t.Helper()
	if opts.Name == "" {
		opts.Name = "gateway"
	}
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	if opts.Listen == "" {
		opts.Listen = "127.0.0.1:0"
	}
	if opts.Config != "" {
		WriteConfig(t, opts.Dir, opts.Config)
	}
	cmd := exec.Command(Binary(t), "--state-dir", opts.Dir, "gateway", "--listen", opts.Listen)
	cmd.Env = CleanEnv()
	if opts.Token != "" {
		cmd.Env = append(cmd.Env, "SWITCHBOARD_GATEWAY_TOKEN="+opts.Token)
	}
	cmd.Env = append(cmd.Env, opts.Env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	g := &Gateway{Dir: opts.Dir, t: t, opts: opts, cmd: cmd, exited: make(chan struct{}), log: &Log{}}
	cmd.Stderr = g.log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start gateway %s: %v", opts.Name, err)
	}
	urls := make(chan string, 1)
	// Reads stdout to its end, which the process's exit brings.
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			g.log.Write(append(sc.Bytes(), '\n'))
			if i := strings.Index(sc.Text(), "listening on "); i >= 0 {
				select {
				case urls <- strings.Fields(sc.Text()[i+len("listening on "):])[0]:
				default:
				}
			}
		}
	}()
	go func() { g.err = cmd.Wait(); close(g.exited) }()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("gateway %s log:\n%s", opts.Name, g.log)
		}
		if opts.KillAtEnd {
			g.Kill()
			return
		}
		g.stopAtEnd()
	})
	select {
	case g.URL = <-urls:
	case <-g.exited:
		t.Fatalf("gateway %s exited before listening: %v\n%s", opts.Name, g.err, g.log)
	case <-time.After(ReadyWithin):
		_ = cmd.Process.Kill()
		t.Fatalf("gateway %s did not listen within %s\n%s", opts.Name, ReadyWithin, g.log)
	}
	return g
}

// WriteConfig writes cfg as dir's switchboard.json5, creating dir.
func WriteConfig(t testing.TB, dir, cfg string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "switchboard.json5"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Restart starts a new gateway process on g's state dir with g's options
// (its config file is not rewritten). g should have ended (Kill, Stop).
func (g *Gateway) Restart() *Gateway {
	g.t.Helper()
	opts := g.opts
	opts.Config = ""
	return StartGateway(g.t, opts)
}

// Kill ends the gateway with SIGKILL, as a crash would (a no-op when it
// already ended), and fails the test if its log shows a race or a panic.
func (g *Gateway) Kill() {
	g.t.Helper()
	g.ended.Store(true)
	_ = g.cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-g.exited:
	case <-time.After(10 * time.Second):
	}
	g.checkLog()
}

// Stop ends the gateway with SIGTERM and fails the test unless it exits
// cleanly within StopWithin.
func (g *Gateway) Stop() {
	g.t.Helper()
	g.ended.Store(true)
	if err := g.stop(); err != nil {
		g.t.Fatal(err)
	}
	g.checkLog()
}

// stopAtEnd is Stop for the test's cleanup: it reports, never stops the
// cleanup early.
func (g *Gateway) stopAtEnd() {
	if g.ended.Load() {
		return // the test ended it and checked it
	}
	if err := g.stop(); err != nil {
		g.t.Error(err)
	}
	g.checkLog()
}

func (g *Gateway) stop() error {
	_ = g.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-g.exited:
		if g.err != nil {
			return fmt.Errorf("gateway %s exited with %v after SIGTERM\n%s", g.opts.Name, g.err, g.log)
		}
		return nil
	case <-time.After(StopWithin):
		// What is it stuck on? SIGQUIT prints every goroutine and exits.
		_ = g.cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-g.exited:
		case <-time.After(10 * time.Second):
			_ = g.cmd.Process.Kill()
			<-g.exited
		}
		return fmt.Errorf("gateway %s did not stop within %s of SIGTERM; its goroutines:\n%s", g.opts.Name, StopWithin, g.log)
	}
}

func (g *Gateway) checkLog() {
	g.t.Helper()
	if bad := g.log.Bad(); len(bad) > 0 {
		g.t.Errorf("gateway %s: %s", g.opts.Name, strings.Join(bad, "\n"))
	}
}

// Signal sends sig to the gateway process (SIGSTOP and SIGCONT freeze
// and thaw it, as a stalled machine would).
func (g *Gateway) Signal(sig os.Signal) error { return g.cmd.Process.Signal(sig) }

// Pid is the gateway's process id.
func (g *Gateway) Pid() int { return g.cmd.Process.Pid }

// Exited is closed when the gateway process has ended.
func (g *Gateway) Exited() <-chan struct{} { return g.exited }

// Log is what the gateway wrote so far (stdout and stderr).
func (g *Gateway) Log() *Log { return g.log }

// Client is the HTTP client of Do: loopback calls that still never
// hang a test.
var Client = &http.Client{Timeout: 60 * time.Second}

// Do sends a request to the gateway (body, when not nil, as JSON; the
// gateway's token, when it has one, as a bearer token) and returns the
// status and the body of the answer. It may run on any goroutine.
func (g *Gateway) Do(method, path string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, g.URL+path, rd)
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if g.opts.Token != "" {
		req.Header.Set("Authorization", "Bearer "+g.opts.Token)
	}
	resp, err := Client.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("%s %s on %s: %w", method, path, g.opts.Name, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// Log keeps a child process's output and remembers the lines that must
// fail the test: a race report, a panic, a fatal runtime error.
type Log struct {
	mu  sync.Mutex
	all bytes.Buffer
	bad []string
}

// Write keeps b.
func (l *Log) Write(b []byte) (int, error) {
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

// String is everything written so far.
func (l *Log) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.all.String()
}

// Bad is the lines that must fail the test.
func (l *Log) Bad() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.bad...)
}

// FreePort is a loopback TCP port nothing listened on a moment ago, for
// gateways that must know each other's address before either starts.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
