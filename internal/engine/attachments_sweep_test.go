package engine

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
)

// At start, before any run starts, the attachment folders no sub-agent
// run names are removed (a process killed between writing a spawn's
// files and committing its run left them); the folder of a child whose
// run is still pending stays, and StartReport counts what went
// (docs/reliability.md, "Crashes, graceful stops and full disks").
func TestStartRemovesAttachmentFoldersNoRunNames(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{
		{When: config.ScriptWhen{Session: ":subagent:"}, Reply: str("late"), DelayMs: 60_000},
	}, func(c *config.Config) { c.Tools.SessionsSpawn.Attachments.Enabled = true })
	res := spawnResult(t, h.call(Requester{}, api.ToolSessionsSpawn,
		`{"task":"read it","attachments":[{"name":"a.txt","content":"kept"}]}`))
	if res.Attachments == nil {
		t.Fatalf("spawn stored no attachments: %+v", res)
	}
	workspace := h.cfg.Workspace(h.dir, "main")
	named := filepath.Join(workspace, res.Attachments.RelDir)
	root := filepath.Dir(named)
	orphan := filepath.Join(root, "spawn-that-never-committed")
	if err := os.MkdirAll(orphan, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(orphan, "b.txt"), []byte("left behind"), 0o600); err != nil {
		t.Fatal(err)
	}
	stray := filepath.Join(root, "not-a-folder.txt")
	if err := os.WriteFile(stray, []byte("a file"), 0o600); err != nil {
		t.Fatal(err)
	}

	h.restartWith(func(*config.Config) {})

	if _, err := os.Stat(orphan); !os.IsNotExist(err) {
		t.Fatalf("the folder no run names is still there (%v)", err)
	}
	if got, err := os.ReadFile(filepath.Join(named, "a.txt")); err != nil || string(got) != "kept" {
		t.Fatalf("the pending child's attachment = %q, %v; want it kept", got, err)
	}
	if _, err := os.Stat(stray); err != nil {
		t.Fatalf("a file beside the folders was removed: %v", err)
	}
	if n := h.e.StartReport().AttachmentsRemoved; n != 1 {
		t.Fatalf("StartReport().AttachmentsRemoved = %d, want 1", n)
	}
}
