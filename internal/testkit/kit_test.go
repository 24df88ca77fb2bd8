package testkit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

func TestLogKeepsTheLinesThatFail(t *testing.T) {
	var l Log
	_, _ = l.Write([]byte("time=1 level=INFO msg=ok\nWARNING: DATA RACE\n"))
	_, _ = l.Write([]byte("panic: boom\n\tgoroutine 1\nfatal error: concurrent map writes\n"))
	want := []string{"WARNING: DATA RACE", "panic: boom", "fatal error: concurrent map writes"}
	if got := l.Bad(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("Bad() = %q, want %q", got, want)
	}
	if !strings.Contains(l.String(), "level=INFO msg=ok") {
		t.Fatalf("String() lost a line: %q", l.String())
	}
}

func TestWaitForFileAndReceive(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ready")
	ch := make(chan string, 1)
	go func() {
		_ = os.WriteFile(path, []byte("ready"), 0o600)
		ch <- "written"
	}()
	if got := Receive(t, 10*time.Second, "the writer", ch); got != "written" {
		t.Fatalf("Receive = %q", got)
	}
	if b := WaitForFile(t, 10*time.Second, path); string(b) != "ready" {
		t.Fatalf("WaitForFile = %q", b)
	}
}

// TestGatewayKillRestartStop starts a gateway on a config, answers over
// HTTP with its token, survives SIGKILL with its state (a restart on the
// same dir sees the session made before the kill) and stops cleanly.
func TestGatewayKillRestartStop(t *testing.T) {
	g := StartGateway(t, GatewayOptions{Token: "kit-token", Config: `{ agents: { list: [{ id: "main", default: true }] } }`})
	if !strings.HasPrefix(g.URL, "http://127.0.0.1:") {
		t.Fatalf("URL = %q", g.URL)
	}
	if code, body, err := g.Do("POST", "/api/sessions/main/chat?wait=30s", map[string]any{"message": "before the kill"}); err != nil || code != 200 {
		t.Fatalf("chat: %d %s %v", code, body, err)
	}
	g.Kill()
	select {
	case <-g.Exited():
	default:
		t.Fatal("Kill returned before the process ended")
	}
	g = g.Restart()
	code, body, err := g.Do("GET", "/api/sessions/main/history", nil)
	if err != nil || code != 200 || !strings.Contains(string(body), "before the kill") {
		t.Fatalf("history after the restart: %d %s %v", code, body, err)
	}
	resp, err := Client.Get(g.URL + "/api/sessions")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Fatalf("without the token: %d, want 401", resp.StatusCode)
	}
	g.Stop()
}
