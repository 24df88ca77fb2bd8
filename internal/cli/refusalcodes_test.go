package cli

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/app"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// refusal is a failed command's --json answer on stdout.
type refusal struct {
	OK    bool `json:"ok"`
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// refusalOf runs a command that must fail with --json and returns its
// machine-readable refusal.
func refusalOf(t *testing.T, c *cli, args ...string) (refusal, result) {
	t.Helper()
	r := c.run(append(args, "--json")...)
	var out refusal
	if r.code == 0 || json.Unmarshal([]byte(r.stdout), &out) != nil || out.OK {
		t.Fatalf("%v: exit %d, stdout %q, stderr %q; want a refusal", args, r.code, r.stdout, r.stderr)
	}
	return out, r
}

// refusalCase is one bad input and the code and words it must get.
type refusalCase struct {
	args []string
	code string
	msg  string
}

func checkRefusals(t *testing.T, c *cli, cases []refusalCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, r := refusalOf(t, c, tc.args...)
			if out.Error.Code != tc.code || !strings.Contains(out.Error.Message, tc.msg) {
				t.Errorf("code %q message %q, want %q with %q", out.Error.Code, out.Error.Message, tc.code, tc.msg)
			}
			if r.code != exitError {
				t.Errorf("exit %d, want %d", r.code, exitError)
			}
			if !strings.Contains(r.stderr, tc.msg) {
				t.Errorf("stderr %q lacks %q", r.stderr, tc.msg)
			}
		})
	}
}

// TestRefusalCodes: a refusal caused by the user's input (a file, a
// config, a code) or by a gateway that does not answer is reported with
// its own code, never `internal`, in-process and through a gateway.
func TestRefusalCodes(t *testing.T) {
	tmp := t.TempDir()
	bad := filepath.Join(tmp, "bad.json5")
	if err := os.WriteFile(bad, []byte("{bad"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(tmp, "missing")
	files := []refusalCase{
		{[]string{"send", "--channel", "telegram", "--to", "telegram:1", "hi", "--file", missing}, domain.CodeInvalid, "--file " + missing + ": no such file or directory"},
		{[]string{"send", "--channel", "telegram", "--to", "telegram:1", "hi", "--file", tmp}, domain.CodeInvalid, "--file " + tmp + ": is a directory"},
		{[]string{"spawn", "task", "--attach", missing}, domain.CodeInvalid, "--attach " + missing + ": no such file or directory"},
		{[]string{"spawn", "task", "--attach", tmp}, domain.CodeInvalid, "--attach " + tmp + ": not a regular file"},
		{[]string{"audit", "export", "--out", filepath.Join(missing, "x.jsonl")}, domain.CodeInvalid, "--out " + filepath.Join(missing, "x.jsonl") + ": no such file or directory"},
		{[]string{"pairing", "approve", "telegram", "ZZZZZZZZ"}, domain.CodeNotFound, "no pending pairing request for code ZZZZZZZZ on telegram"},
		{[]string{"import", "openclaw", missing}, domain.CodeInvalid, "OpenClaw state dir " + missing + " does not exist"},
		{[]string{"config", "validate", missing}, domain.CodeInvalid, "config validate " + missing + ": no such file or directory"},
		{[]string{"--config", missing, "sessions", "list"}, domain.CodeInvalid, "config file " + missing + " (named by --config) does not exist"},
		{[]string{"--config", bad, "chat", "main", "hi"}, domain.CodeInvalid, "config " + bad + ": line 1"},
		{[]string{"migrate", "--to", "postgres://127.0.0.1:1/x"}, domain.CodeUnavailable, "migrate: target"},
	}
	t.Run("in-process", func(t *testing.T) {
		checkRefusals(t, newCLI(t), files)
	})
	t.Run("through a gateway", func(t *testing.T) {
		c := newCLI(t)
		_, stop := startGateway(t, c, "--listen", "127.0.0.1:0")
		defer stop()
		// Import and migrate need the state dir to themselves, and the
		// config is read before a gateway is looked for.
		checkRefusals(t, c, files[:6])
	})
	t.Run("a gateway that does not answer", func(t *testing.T) {
		c := newCLI(t)
		if err := os.MkdirAll(c.stateDir(), 0o700); err != nil {
			t.Fatal(err)
		}
		// This process holds the state dir as its gateway, at an address
		// nothing listens on.
		lock, err := app.AcquireLock(c.stateDir(), app.GatewayOwner)
		if err != nil {
			t.Fatal(err)
		}
		defer lock.Release()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		dead := "http://" + ln.Addr().String()
		ln.Close()
		if err := app.WriteGatewayInfo(c.stateDir(), app.GatewayInfo{URL: dead, WSURL: "ws" + dead[4:] + "/", PID: os.Getpid()}); err != nil {
			t.Fatal(err)
		}
		checkRefusals(t, c, []refusalCase{
			{[]string{"chat", "main", "hi"}, domain.CodeUnavailable, "does not answer"},
			{[]string{"spawn", "task"}, domain.CodeUnavailable, "does not answer"},
			{[]string{"runs", "cancel", "r1"}, domain.CodeUnavailable, "does not answer"},
			{[]string{"channels", "status"}, domain.CodeUnavailable, "does not answer"},
		})
	})
}
