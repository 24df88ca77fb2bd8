package cli

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/switchboard-go/switchboard/internal/app"
)

// logLines collects JSON log lines written to stderr and lets a test
// wait for one.
type logLines struct {
	mu    sync.Mutex
	buf   strings.Builder
	lines []map[string]any
	raw   []string
	added chan struct{} // closed and replaced on each new line
}

func newLogLines() *logLines { return &logLines{added: make(chan struct{})} }

func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	for {
		s := l.buf.String()
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			break
		}
		line := s[:i]
		l.buf.Reset()
		l.buf.WriteString(s[i+1:])
		var m map[string]any
		_ = json.Unmarshal([]byte(line), &m)
		l.lines = append(l.lines, m)
		l.raw = append(l.raw, line)
		close(l.added)
		l.added = make(chan struct{})
	}
	return len(p), nil
}

// wait returns the first line (from index from on) whose msg is msg.
func (l *logLines) wait(t *testing.T, from int, msg string) (map[string]any, int) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		l.mu.Lock()
		for i := from; i < len(l.lines); i++ {
			if l.lines[i]["msg"] == msg {
				m := l.lines[i]
				l.mu.Unlock()
				return m, i + 1
			}
		}
		added := l.added
		l.mu.Unlock()
		select {
		case <-added:
		case <-deadline:
			l.mu.Lock()
			defer l.mu.Unlock()
			t.Fatalf("no log line %q; stderr:\n%s", msg, strings.Join(l.raw, "\n"))
		}
	}
}

// firstLine returns the first line written to the reader (the gateway's
// "listening on" line) and drains the rest.
func firstLine(t *testing.T, r io.Reader) string {
	t.Helper()
	lines := make(chan string, 1)
	go func() {
		br := bufio.NewReader(r)
		line, _ := br.ReadString('\n')
		lines <- line
		_, _ = io.Copy(io.Discard, br)
	}()
	select {
	case line := <-lines:
		const prefix = "switchboard gateway listening on "
		if !strings.HasPrefix(line, prefix) {
			t.Fatalf("gateway printed %q", line)
		}
		return strings.Fields(strings.TrimPrefix(line, prefix))[0]
	case <-time.After(20 * time.Second):
		t.Fatal("gateway did not start")
		return ""
	}
}

// status GETs url with a bearer token and returns the status code.
func status(t *testing.T, url, token string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// The gateway run as the process (Process, real signals): SIGHUP reloads
// the config — a new token works and the old one is refused; an invalid
// file is logged with its problems and the old config keeps serving; a
// change that needs a restart is said — and SIGTERM stops it cleanly,
// logging why and leaking no goroutine.
func TestGatewayReloadsOnSIGHUP(t *testing.T) {
	leaks := goleak.IgnoreCurrent()
	c := newCLI(t)
	c.writeConfig(`{gateway: {auth: {token: "old-token"}}}`)
	pr, pw := io.Pipe()
	logs := newLogLines()
	done := make(chan int, 1)
	go func() {
		code := Process([]string{"gateway", "--listen", "127.0.0.1:0", "--log-format", "json"},
			func(k string) string { return c.env[k] }, strings.NewReader(""), pw, logs)
		pw.Close()
		done <- code
	}()
	url := firstLine(t, pr)
	_, next := logs.wait(t, 0, "switchboard started")
	api := url + "/api/sessions"
	if got := status(t, api, "old-token"); got != http.StatusOK {
		t.Fatalf("old token before reload: %d", got)
	}

	c.writeConfig(`{gateway: {auth: {token: "new-token"}}, session: {mainKey: "other"}}`)
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	line, next := logs.wait(t, next, "config reloaded; some changes need a restart")
	if !strings.Contains(toJSON(line["applied"]), "gateway.auth") || !strings.Contains(toJSON(line["needRestart"]), "session.mainKey") {
		t.Fatalf("reload line = %v", line)
	}
	if got := status(t, api, "new-token"); got != http.StatusOK {
		t.Fatalf("new token after reload: %d", got)
	}
	if got := status(t, api, "old-token"); got != http.StatusUnauthorized {
		t.Fatalf("old token after reload: %d, want 401", got)
	}

	c.writeConfig(`{gateway: {auth: {token: "third"}}, bogusKey: 1}`)
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	line, _ = logs.wait(t, next, "config reload failed; the running configuration stays")
	if !strings.Contains(toJSON(line["problems"]), "bogusKey") {
		t.Fatalf("failed reload line = %v", line)
	}
	if got := status(t, api, "new-token"); got != http.StatusOK {
		t.Fatalf("after an invalid reload the running token: %d", got)
	}
	if got := status(t, api, "third"); got != http.StatusUnauthorized {
		t.Fatalf("a token of the invalid file: %d, want 401", got)
	}

	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("gateway exit %d", code)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("gateway did not stop on SIGTERM")
	}
	stop, _ := logs.wait(t, 0, "switchboard stopped")
	if stop["reason"] != "signal terminated" || stop["shutdown"] == nil {
		t.Fatalf("stop line = %v", stop)
	}
	goleak.VerifyNone(t, leaks)
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// The gateway logs at info by default: its start line names the address,
// state dir, store and version (JSON with --log-format json); with
// --log-level warn it is quiet. Commands log nothing at info.
func TestGatewayStartLog(t *testing.T) {
	c := newCLI(t)
	url, stop := startGateway(t, c, "--listen", "127.0.0.1:0", "--log-format", "json")
	r := stop()
	if r.code != 0 {
		t.Fatalf("gateway exit %d: %s", r.code, r.stderr)
	}
	var start, stopLine, recovery map[string]any
	for _, line := range strings.Split(strings.TrimSpace(r.stderr), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("stderr line is not JSON: %q", line)
		}
		switch m["msg"] {
		case "switchboard started":
			start = m
		case "switchboard stopped":
			stopLine = m
		case "recovery":
			recovery = m
		}
	}
	for _, k := range []string{"runsRequeued", "runsAborted", "runsResumed", "mirrorFilesRepaired", "attachmentDirsRemoved"} {
		if recovery[k] != float64(0) {
			t.Errorf("recovery line %s = %v, want 0 on a fresh state dir (line %v)", k, recovery[k], recovery)
		}
	}
	want := map[string]any{"level": "INFO", "url": url, "stateDir": c.stateDir(), "store": app.DBPath(c.stateDir()),
		"version": buildVersion().Version, "auth": "none"}
	for k, v := range want {
		if start[k] != v {
			t.Errorf("start line %s = %v, want %v (line %v)", k, start[k], v, start)
		}
	}
	if start["addr"] == nil || start["pid"] == nil {
		t.Errorf("start line lacks addr or pid: %v", start)
	}
	if stopLine == nil || stopLine["reason"] != "context canceled" || stopLine["shutdown"] == nil {
		t.Errorf("stop line = %v", stopLine)
	}

	_, stop = startGateway(t, c, "--listen", "127.0.0.1:0", "--log-level", "warn")
	if r := stop(); r.code != 0 || strings.TrimSpace(r.stderr) != "" {
		t.Fatalf("--log-level warn: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := c.ok("chat", "main", "hi"); strings.TrimSpace(r.stderr) != "" {
		t.Fatalf("a command logged at its default level: %q", r.stderr)
	}
	for _, bad := range [][]string{{"--log-level", "loud"}, {"--log-format", "xml"}} {
		if r := c.run(append([]string{"sessions", "list"}, bad...)...); r.code != exitUsage {
			t.Errorf("%v: exit %d, want %d (stderr %q)", bad, r.code, exitUsage, r.stderr)
		}
	}
}

// A gateway.json naming a pid that is alive (pid 1, this process) beside
// a free state-dir lock is stale: commands work in-process and a gateway
// starts (and replaces it).
func TestStaleGatewayFileDoesNotBlock(t *testing.T) {
	for _, pid := range []int{1, os.Getpid()} {
		c := newCLI(t)
		if err := os.MkdirAll(c.stateDir(), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := app.WriteGatewayInfo(c.stateDir(), app.GatewayInfo{URL: "http://127.0.0.1:1", WSURL: "ws://127.0.0.1:1/", PID: pid}); err != nil {
			t.Fatal(err)
		}
		if out := jsonOf[chatOutput](c, "chat", "main", "hi", "--json"); out.Reply != "echo: hi" {
			t.Fatalf("pid %d: chat = %+v", pid, out)
		}
		url, stop := startGateway(t, c, "--listen", "127.0.0.1:0")
		info, running, err := app.ReadGatewayInfo(c.stateDir())
		if err != nil || !running || info.URL != url {
			t.Fatalf("pid %d: gateway.json after start = %+v, %v, %v", pid, info, running, err)
		}
		if r := stop(); r.code != 0 {
			t.Fatalf("pid %d: gateway exit %d: %s", pid, r.code, r.stderr)
		}
	}
}

// A zero-byte store beside transcripts is refused with instructions by
// every command; the file is left as it was.
func TestZeroByteStoreRefused(t *testing.T) {
	c := newCLI(t)
	c.ok("chat", "main", "hi")
	if err := os.Truncate(app.DBPath(c.stateDir()), 0); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"-wal", "-shm"} {
		_ = os.Remove(app.DBPath(c.stateDir()) + f)
	}
	for _, args := range [][]string{{"sessions", "list"}, {"chat", "main", "again"}, {"gateway", "--listen", "127.0.0.1:0"}} {
		r := c.run(args...)
		if r.code != exitError || !strings.Contains(r.stderr, "the store file is empty but 1 transcripts exist") || !strings.Contains(r.stderr, "backup") {
			t.Fatalf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
	if fi, err := os.Stat(app.DBPath(c.stateDir())); err != nil || fi.Size() != 0 {
		t.Fatalf("store after refusals: %v %v", fi, err)
	}
}
