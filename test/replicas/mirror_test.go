package replicas

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/testkit"
)

// TestMirrorRepairWithReplicas: replicas share transcripts.dir. The
// session files are deleted; a replica that starts while another keeps
// running turns on one of those sessions repairs the files from the store
// (under each file's flock, skipping lines a peer wrote). Every message of
// every session is then in its file exactly once.
func TestMirrorRepairWithReplicas(t *testing.T) {
	url := testkit.Postgres(t)
	shared := t.TempDir()
	cfg := strings.Replace(fmt.Sprintf(replicaConfig, url, 3, 64), "transcripts: { mirror: false }",
		fmt.Sprintf("transcripts: { dir: %q }", shared), 1)
	a := startGateway(t, "r1", cfg)
	keys := []string{"agent:main:m1", "agent:main:m2", "agent:main:m3"}
	for _, k := range keys {
		for range 2 {
			if r := a.wait(a.chat(k, "quick hello").RunID, 20*time.Second); r.Status != "ok" {
				t.Fatalf("run: %+v", r)
			}
		}
	}
	files, _ := filepath.Glob(filepath.Join(shared, "agents", "main", "sessions", "*.jsonl"))
	if len(files) != len(keys) {
		t.Fatalf("mirror files: %v, want %d", files, len(keys))
	}
	for _, f := range files {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	// Turns keep landing on m1 (through a) while b starts and repairs.
	busy := make(chan run, 1)
	go func() { busy <- a.chat(keys[0], "slow during the repair") }()
	b := startGateway(t, "r2", cfg)
	if r := b.wait((<-busy).RunID, 20*time.Second); r.Status != "ok" {
		t.Fatalf("run during the repair: %+v", r)
	}
	if r := b.wait(b.chat(keys[0], "quick after").RunID, 20*time.Second); r.Status != "ok" {
		t.Fatalf("run after the repair: %+v", r)
	}
	files, _ = filepath.Glob(filepath.Join(shared, "agents", "main", "sessions", "*.jsonl"))
	if len(files) != len(keys) {
		t.Fatalf("mirror files after the repair: %v, want %d", files, len(keys))
	}
	total := 0
	for _, k := range keys {
		total += len(b.historyTools(k))
	}
	// The mirror follows the store: a run's lines are appended after its
	// end is committed, so a wait may return just before they land.
	deadline := time.Now().Add(10 * time.Second)
	for {
		lines, dups := mirrorLines(t, shared)
		if len(dups) > 0 {
			t.Fatalf("messages written twice: %v", dups)
		}
		if lines == total {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("mirror holds %d messages, the store %d", lines, total)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// mirrorLines counts the message lines of the session files under dir, and
// lists the ids a file holds twice.
func mirrorLines(t *testing.T, dir string) (lines int, dups []string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "agents", "main", "sessions", "*.jsonl"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var e struct{ Type, ID string }
			if json.Unmarshal([]byte(line), &e) != nil || e.Type != "message" {
				continue
			}
			if seen[e.ID] {
				dups = append(dups, filepath.Base(f)+": "+e.ID)
			}
			seen[e.ID] = true
			lines++
		}
	}
	return lines, dups
}
