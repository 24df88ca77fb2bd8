package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/switchboard-go/switchboard/internal/api"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/policy"
)

// TestRemoteBackend runs the commands against a running gateway of the
// same state dir: they must go through it (the state-dir lock is held).
func TestRemoteBackend(t *testing.T) {
	c := newCLI(t)
	c.writeConfig(`{ tools: { sessions: { visibility: "agent" } } }`)
	_, stop := startGateway(t, c, "--listen", "127.0.0.1:0")
	defer func() {
		if r := stop(); r.code != 0 {
			t.Errorf("gateway exit %d: %s", r.code, r.stderr)
		}
	}()

	out := jsonOf[chatOutput](c, "chat", "main", "hello", "--json")
	if out.Status != string(domain.RunOK) || out.Reply != "echo: hello" || out.RunID == "" {
		t.Fatalf("remote chat = %+v", out)
	}
	if r := c.ok("chat", "main", "/stop"); !strings.Contains(r.stdout, "Nothing to stop.") {
		t.Fatalf("remote /stop = %q", r.stdout)
	}
	list := jsonOf[api.ListResult](c, "sessions", "list", "--json")
	if list.Count != 1 || list.Sessions[0].Key != "agent:main:main" {
		t.Fatalf("remote list = %+v", list)
	}
	h := jsonOf[api.HistoryResult](c, "sessions", "history", "main", "--json")
	if len(h.Messages) != 2 {
		t.Fatalf("remote history = %+v", h)
	}
	send := jsonOf[api.SendResult](c, "send", "agent:main:research", "find cats", "--json")
	if send.Status != "ok" || send.Reply != "echo: find cats" {
		t.Fatalf("remote send = %+v", send)
	}
	spawn := jsonOf[api.SpawnResult](c, "spawn", "count", "--json")
	if spawn.Status != "accepted" || spawn.RunID == "" {
		t.Fatalf("remote spawn = %+v", spawn)
	}
	child := jsonOf[domain.Run](c, "runs", "wait", spawn.RunID, "--timeout", "10", "--json")
	if child.Status != domain.RunOK || child.Reply != "echo: count" {
		t.Fatalf("remote runs wait = %+v", child)
	}
	if got := jsonOf[domain.Run](c, "runs", "get", out.RunID, "--json"); got.ID != out.RunID {
		t.Fatalf("remote runs get = %+v", got)
	}
	runs := jsonOf[struct {
		Count int `json:"count"`
	}](c, "runs", "list", "--json")
	if runs.Count < 3 {
		t.Fatalf("remote runs list count = %d", runs.Count)
	}
	agents := jsonOf[policy.AgentsListResult](c, "agents", "list", "--json")
	if len(agents.Agents) == 0 {
		t.Fatalf("remote agents = %+v", agents)
	}
	p := jsonOf[domain.Session](c, "sessions", "patch", "agent:main:notes", "--label", "notes", "--json")
	if p.Label != "notes" {
		t.Fatalf("remote patch = %+v", p)
	}
	mustContain(t, "remote reset", c.ok("sessions", "reset", "agent:main:notes").stdout, "new sessionId")
	mustContain(t, "remote delete", c.ok("sessions", "delete", "agent:main:notes").stdout, "deleted")
	if r := c.run("runs", "get", "nope"); r.code != exitError || !strings.Contains(r.stderr, "run not found") {
		t.Fatalf("remote unknown run: exit %d, stderr %q", r.code, r.stderr)
	}
	// The gateway lists its outbox (GET /api/outbox).
	if r := c.run("outbox", "list", "--json"); r.code != 0 || !strings.Contains(r.stdout, `"items"`) {
		t.Fatalf("remote outbox: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if r := c.run("import", "openclaw", c.dir); r.code != exitError || !strings.Contains(r.stderr, "stop it before importing") {
		t.Fatalf("import while the gateway runs: exit %d, stderr %q", r.code, r.stderr)
	}

	// MCP over stdio forwards its tool calls to the gateway.
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sessions_list","arguments":{}}}`,
	}, "\n") + "\n"
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var mout, merr bytes.Buffer
	if code := Main(ctx, []string{"mcp"}, func(k string) string { return c.env[k] }, strings.NewReader(in), &mout, &merr); code != 0 {
		t.Fatalf("remote mcp exit %d: %s", code, merr.String())
	}
	var reply struct {
		Result struct {
			StructuredContent api.ListResult `json:"structuredContent"`
		} `json:"result"`
	}
	last := strings.Split(strings.TrimSpace(mout.String()), "\n")
	if err := json.Unmarshal([]byte(last[len(last)-1]), &reply); err != nil || reply.Result.StructuredContent.Count < 2 {
		t.Fatalf("remote mcp sessions_list = %s (%v)", mout.String(), err)
	}
}

func TestRemoteToken(t *testing.T) {
	c := newCLI(t)
	c.env[tokenEnv] = "s3cret-token"
	_, stop := startGateway(t, c, "--listen", "127.0.0.1:0")
	defer stop()
	c.ok("sessions", "list") // the token comes from the environment

	delete(c.env, tokenEnv)
	if r := c.run("sessions", "list"); r.code != exitError || !strings.Contains(r.stderr, "needs a token") {
		t.Fatalf("without a token: exit %d, stderr %q", r.code, r.stderr)
	}
	c.writeConfig(`{ gateway: { auth: { token: "wrong" } } }`)
	if r := c.run("sessions", "list"); r.code != exitError {
		t.Fatalf("with a wrong token: exit %d, stderr %q", r.code, r.stderr)
	}
	c.writeConfig(`{ gateway: { auth: { token: "s3cret-token" } } }`)
	c.ok("sessions", "list") // the token comes from the config
}

// TestRemoteCancelRunningRun cancels a run that is running (the script
// model is in its 20 s delay) through a running gateway: `runs cancel`
// says so, the run ends cancelled without its reply, and a second cancel
// reports that it had already ended.
func TestRemoteCancelRunningRun(t *testing.T) {
	c := newCLI(t)
	c.writeConfig(`{ models: { providers: { script: { rules: [ { when: { message: "^slow" }, reply: "late", delayMs: 20000 } ] } } } }`)
	_, stop := startGateway(t, c, "--listen", "127.0.0.1:0")
	defer func() {
		if r := stop(); r.code != 0 {
			t.Errorf("gateway exit %d: %s", r.code, r.stderr)
		}
	}()

	runID := strings.TrimSpace(c.ok("chat", "main", "slow", "--wait", "0").stdout)
	if runID == "" {
		t.Fatal("chat --wait 0 printed no run id")
	}
	// Wait, with a deadline, for the gateway to start the run; the model's
	// 20 s delay keeps it running well past this.
	deadline := time.Now().Add(15 * time.Second)
	for {
		run := jsonOf[domain.Run](c, "runs", "get", runID, "--json")
		if run.Status == domain.RunRunning {
			break
		}
		if run.Status != domain.RunQueued {
			t.Fatalf("run %s is %s before the cancel, want running", runID, run.Status)
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s still queued after 15 s", runID)
		}
		<-time.After(10 * time.Millisecond)
	}

	if r := c.ok("runs", "cancel", runID); r.stdout != "cancelled\n" {
		t.Fatalf("cancel of a running run = %q", r.stdout)
	}
	run := jsonOf[domain.Run](c, "runs", "get", runID, "--json")
	if run.Status != domain.RunCancelled || run.Reply != "" {
		t.Fatalf("run after cancel = %s, reply %q; want cancelled without a reply", run.Status, run.Reply)
	}
	if r := c.ok("runs", "cancel", runID); r.stdout != "already ended: cancelled\n" {
		t.Fatalf("second cancel = %q", r.stdout)
	}
}
