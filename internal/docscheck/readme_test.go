package docscheck

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestReadmeCommandsRun builds the binary once and runs every command of the
// README's sh blocks that is not marked illustrative, in a temporary
// directory holding the binary as ./switchboard, on a temporary state dir
// and home. Each must exit 0.
func TestReadmeCommandsRun(t *testing.T) {
	root := testRoot(t)
	text, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	cmds := shCommands(parse(string(text)))
	if len(cmds) == 0 {
		t.Fatal("README.md shows no runnable sh command: has its sh block moved or been marked illustrative?")
	}

	work := t.TempDir()
	build := exec.CommandContext(t.Context(), "go", "build", "-o", filepath.Join(work, "switchboard"), "./cmd/switchboard")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	env := append(os.Environ(),
		"HOME="+filepath.Join(work, "home"),
		"SWITCHBOARD_STATE_DIR="+filepath.Join(work, "state"),
		"SWITCHBOARD_CONFIG=",
		"OPENAI_API_KEY=", "ANTHROPIC_API_KEY=",
	)
	for _, c := range cmds {
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		sh := exec.CommandContext(ctx, "sh", "-c", c.text)
		sh.Dir = work
		sh.Env = env
		sh.Stdin = bytes.NewReader(nil)
		out, err := sh.CombinedOutput()
		cancel()
		if err != nil {
			t.Errorf("README.md:%d: %s: %v\n%s", c.line, c.text, err, out)
		}
	}
}
