package replicas

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/switchboard-go/switchboard/internal/store/pgtest"
)

// binary is the switchboard binary built once for the package's tests.
var binary string

// pg is the package's PostgreSQL cluster (started on first use).
var pg pgtest.Shared

func TestMain(m *testing.M) { os.Exit(runMain(m)) }

func runMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "switchboard-replicas-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binary = filepath.Join(dir, "switchboard")
	args := []string{"build", "-o", binary, "./cmd/switchboard"}
	if os.Getenv("REPLICAS_NORACE") == "" {
		// The gateways run with the race detector, so a race between
		// replicas' goroutines fails the test (benchmarks turn it off).
		args = []string{"build", "-race", "-o", binary, "./cmd/switchboard"}
	}
	build := exec.Command("go", args...)
	build.Dir = filepath.Join("..", "..")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build switchboard:", err)
		return 1
	}
	return pg.Main(m)
}
