// Command switchboard hosts LLM agent sessions and gives agents session
// tools; see `switchboard --help` and docs/cli.md.
package main

import (
	"os"

	"github.com/switchboard-go/switchboard/internal/cli"
)

// main only wires the process to the command line: signals (stop on
// SIGINT/SIGTERM, a gateway's reload on SIGHUP) are handled by cli.Process.
func main() {
	os.Exit(cli.Process(os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr))
}
