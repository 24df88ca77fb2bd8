package testkit

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/switchboard-go/switchboard/internal/store/pgtest"
)

// Options tune Main.
type Options struct {
	// NoRace builds the binary without the race detector (benchmarks,
	// whose numbers must not include its cost). By default the binary is
	// built with -race, so a race inside a gateway or CLI process the
	// tests start fails the test that started it.
	NoRace bool
}

// kit is the process-wide state: one binary, one PostgreSQL cluster.
var kit struct {
	mu     sync.Mutex
	noRace bool
	dir    string // holds the binary; Main removes it

	once   sync.Once
	binary string
	err    error

	pg pgtest.Shared
}

// Main builds the switchboard binary, runs the tests, then removes the
// binary and stops the PostgreSQL cluster if a test started one. Call it
// from TestMain: os.Exit(testkit.Main(m)). Building before any test runs
// keeps the build's minutes out of the tests' own deadlines.
func Main(m *testing.M, opts ...Options) int {
	for _, o := range opts {
		kit.noRace = kit.noRace || o.NoRace
	}
	if _, err := build(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() {
		kit.mu.Lock()
		defer kit.mu.Unlock()
		if kit.dir != "" {
			_ = os.RemoveAll(kit.dir)
		}
	}()
	return kit.pg.Main(m)
}

// Binary is the path of the switchboard binary, built on first use (once
// per test process) from ./cmd/switchboard of the module under test.
func Binary(t testing.TB) string {
	t.Helper()
	b, err := build()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func build() (string, error) {
	kit.once.Do(func() {
		root, err := repoRoot()
		if err != nil {
			kit.err = err
			return
		}
		dir, err := os.MkdirTemp("", "switchboard-testkit-")
		if err != nil {
			kit.err = fmt.Errorf("testkit: %w", err)
			return
		}
		kit.mu.Lock()
		kit.dir = dir
		kit.mu.Unlock()
		bin := filepath.Join(dir, "switchboard")
		args := []string{"build", "-o", bin, "./cmd/switchboard"}
		if !kit.noRace {
			args = []string{"build", "-race", "-o", bin, "./cmd/switchboard"}
		}
		cmd := exec.Command("go", args...)
		cmd.Dir = root
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			kit.err = fmt.Errorf("testkit: build switchboard: %w\n%s", err, out.String())
			return
		}
		kit.binary = bin
	})
	return kit.binary, kit.err
}
