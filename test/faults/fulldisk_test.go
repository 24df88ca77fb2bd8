package faults

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/testkit"
)

// sizedFS mounts a tmpfs of size bytes and returns its path; it skips the
// test, saying why, when it cannot (not root, no mount permission).
func sizedFS(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a size-limited tmpfs (CI runs as root)")
	}
	dir := filepath.Join(t.TempDir(), "mnt")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs (%v: %s): no size-limited file system to fill", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Logf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// fill writes a file until the file system is full and returns its path.
func fill(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "fill")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("fill: %v", err)
			}
			break
		}
	}
	// Smaller writes take the last free pages too.
	small := make([]byte, 512)
	for {
		if _, err := f.Write(small); err != nil {
			return path
		}
	}
}

// TestFullDisk: on a full file system nothing is acknowledged that is not
// stored — sends, chats and spawns get a retryable UNAVAILABLE (503)
// naming the cause, tools an error status with it; a run whose end could
// not be written is not left running; and service resumes by itself once
// space returns.
func TestFullDisk(t *testing.T) {
	mnt := sizedFS(t, "24m")
	dir := filepath.Join(mnt, "state")
	testkit.WriteConfig(t, dir, faultConfig)
	g := startGateway(t, dir, "full disk")
	var ack acked

	// Warm up: sessions and the WAL exist.
	for i := range 3 {
		var a chatAnswer
		if code, body := g.call("POST", "/api/sessions/main/chat?wait=10s", map[string]any{"message": fmt.Sprintf("warm %d", i)}, &a); code != 200 {
			t.Fatalf("chat: %d %s", code, body)
		}
		ack.chats = append(ack.chats, a.Run.RunID)
	}
	// A slow run is in its model call when the disk fills.
	var slow chatAnswer
	if code, body := g.call("POST", "/api/sessions/agent:main:slow/chat", map[string]any{"message": "slow one"}, &slow); code != 200 {
		t.Fatalf("chat: %d %s", code, body)
	}
	ack.chats = append(ack.chats, slow.Run.RunID)
	filler := fill(t, mnt)

	const cause = "no space left on device"
	refused := []struct {
		name, path string
		body       map[string]any
	}{
		{"chat", "/api/sessions/main/chat", map[string]any{"message": "while full"}},
		{"send", "/api/sessions/agent:main:c1/send", map[string]any{"message": "while full", "timeoutSeconds": 0}},
		{"spawn", "/api/spawn", map[string]any{"task": "while full", "attachments": []map[string]any{{"name": "a.txt", "content": strings.Repeat("x", 4096)}}}},
	}
	for _, r := range refused {
		// A write may still fit in pages SQLite already holds; the first
		// that needs a new one is refused. Try a few.
		var code int
		var body []byte
		for range 20 {
			code, body = g.call("POST", r.path, r.body, nil)
			if code != 200 {
				break
			}
		}
		if code != 503 || !strings.Contains(string(body), cause) || !strings.Contains(string(body), `"unavailable"`) {
			t.Errorf("%s on a full disk: %d %s; want 503 unavailable naming %q", r.name, code, body, cause)
		}
	}
	// A tool answers as tools do: status "error" with the cause, and the
	// retryable code.
	var tool struct {
		IsError bool `json:"isError"`
		Result  struct {
			Status string `json:"status"`
			Error  string `json:"error"`
			Code   string `json:"code"`
		} `json:"result"`
	}
	code, body := g.call("POST", "/api/tools/sessions_send", map[string]any{"sessionKey": "agent:main:c2", "message": "tool while full", "timeoutSeconds": 0}, &tool)
	if code != 200 || !tool.IsError || tool.Result.Status != "error" || !strings.Contains(tool.Result.Error, cause) || tool.Result.Code != "unavailable" {
		t.Errorf("sessions_send tool on a full disk: %d %s; want status error naming %q, code unavailable", code, body, cause)
	}

	// The slow run's end cannot be written yet: it is still running.
	time.Sleep(1200 * time.Millisecond)
	var run struct {
		Status string `json:"status"`
	}
	if code, body := g.call("GET", "/api/runs/"+slow.Run.RunID, nil, &run); code != 200 {
		t.Fatalf("read run while full: %d %s", code, body)
	}
	t.Logf("slow run while the disk is full: %s", run.Status)

	// Space returns: the run ends by itself, and new work is served.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		g.call("GET", "/api/runs/"+slow.Run.RunID, nil, &run)
		if run.Status != "running" && run.Status != "queued" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run whose end failed to commit is still %s 20s after space returned", run.Status)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if run.Status != "ok" {
		t.Errorf("slow run ended %s, want ok", run.Status)
	}
	var a chatAnswer
	if code, body := g.call("POST", "/api/sessions/main/chat?wait=10s", map[string]any{"message": "after"}, &a); code != 200 || a.Run.Status != "ok" {
		t.Fatalf("chat after space returned: %d %s", code, body)
	}
	ack.chats = append(ack.chats, a.Run.RunID)
	var sp spawnAnswer
	if code, body := g.call("POST", "/api/spawn", map[string]any{"task": "after", "cleanup": "delete", "attachments": []map[string]any{{"name": "a.txt", "content": "x"}}}, &sp); code != 200 {
		t.Fatalf("spawn after space returned: %d %s", code, body)
	}
	ack.spawns = append(ack.spawns, sp.RunID)
	waitIdle(t, g, 90*time.Second)
	g.stop()
	checkInvariants(t, dir, ack)
}
