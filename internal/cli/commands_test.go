package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/app"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/policy"
)

func TestFreshStateDirListsEmpty(t *testing.T) {
	c := newCLI(t)
	res := jsonOf[api.ListResult](c, "sessions", "list", "--json")
	if res.Count != 0 || res.Sessions == nil || len(res.Sessions) != 0 {
		t.Fatalf("fresh list = %+v, want count 0 and an empty array", res)
	}
	if r := c.ok("sessions", "list"); !strings.Contains(r.stdout, "No sessions.") {
		t.Errorf("human output = %q", r.stdout)
	}
	if r := c.ok("runs", "list"); !strings.Contains(r.stdout, "No runs.") {
		t.Errorf("runs list = %q", r.stdout)
	}
	if r := c.ok("outbox", "list"); !strings.Contains(r.stdout, "No outbox items.") {
		t.Errorf("outbox list = %q", r.stdout)
	}
}

func TestChat(t *testing.T) {
	c := newCLI(t)
	// Flags after the positional arguments.
	out := jsonOf[chatOutput](c, "chat", "main", "hello", "there", "--json", "--wait", "10")
	if out.Status != string(domain.RunOK) || out.Reply != "echo: hello there" || out.RunID == "" || out.SessionKey != "agent:main:main" {
		t.Fatalf("chat --json = %+v", out)
	}
	if r := c.ok("chat", "main", "again"); r.stdout != "echo: again\n" {
		t.Fatalf("chat stdout = %q, want the reply alone", r.stdout)
	}
	cmd := jsonOf[chatOutput](c, "chat", "main", "/new", "--json")
	if cmd.Command != "new" || !strings.Contains(cmd.Reply, "New session started") {
		t.Fatalf("/new = %+v", cmd)
	}
	if r := c.ok("chat", "main", "/stop"); !strings.Contains(r.stdout, "Nothing to stop.") {
		t.Fatalf("/stop = %q", r.stdout)
	}
	// An idle session's run starts as it is accepted: queued or running.
	queued := jsonOf[chatOutput](c, "chat", "main", "later", "--wait", "0", "--json")
	if queued.RunID == "" || (queued.Status != string(domain.RunQueued) && queued.Status != string(domain.RunRunning)) {
		t.Fatalf("--wait 0 = %+v, want a run id that has not ended", queued)
	}

	r := c.run("chat", "agent:nobody:main", "hi")
	if r.code != exitError || !strings.Contains(r.stderr, `unknown agent id "nobody"`) {
		t.Fatalf("chat to unknown agent: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestSessionsListAndHistory(t *testing.T) {
	c := newCLI(t)
	c.ok("chat", "main", "one")
	c.ok("chat", "agent:main:notes", "two")

	res := jsonOf[api.ListResult](c, "sessions", "list", "--json", "--messages", "1")
	if res.Count != 2 || res.Sessions[0].Key != "agent:main:notes" || res.Sessions[1].Key != "agent:main:main" {
		t.Fatalf("list = %+v, want notes then main", res)
	}
	if len(res.Sessions[0].Messages) != 1 {
		t.Fatalf("--messages 1 = %+v", res.Sessions[0].Messages)
	}
	if m, err := res.Sessions[0].Messages[0].Message(); err != nil || m.Content.Text() != "echo: two" || m.ID == "" {
		t.Fatalf("--messages 1 = %+v, %v (want the reply, with its id)", m, err)
	}
	if one := jsonOf[api.ListResult](c, "sessions", "list", "--limit", "1", "--json"); one.Count != 1 {
		t.Fatalf("--limit 1 count = %d", one.Count)
	}
	if mains := jsonOf[api.ListResult](c, "sessions", "list", "--kinds", "main", "--json"); mains.Count != 1 || mains.Sessions[0].Kind != "main" {
		t.Fatalf("--kinds main = %+v", mains)
	}
	if found := jsonOf[api.ListResult](c, "sessions", "list", "--search", "note", "--json"); found.Count != 1 {
		t.Fatalf("--search note count = %d", found.Count)
	}
	if none := jsonOf[api.ListResult](c, "sessions", "list", "--agent", "other", "--json"); none.Count != 0 {
		t.Fatalf("--agent other count = %d", none.Count)
	}

	clamped := c.ok("sessions", "list", "--limit", "1000000000")
	mustContain(t, "clamped list stderr", clamped.stderr, "--limit 1000000000 is out of range", "using 200")
	mustContain(t, "human list", clamped.stdout, "KEY", "agent:main:notes", "main", "2 sessions")

	// As a session: the default visibility (tree) shows only its own tree.
	as := jsonOf[api.ListResult](c, "sessions", "list", "--as", "agent:main:notes", "--json")
	if as.Count != 1 || as.Sessions[0].Key != "agent:main:notes" {
		t.Fatalf("--as notes = %+v, want only itself", as)
	}

	h := jsonOf[api.HistoryResult](c, "sessions", "history", "main", "--json")
	if len(h.Messages) != 2 || h.Messages[0].Role != "user" || h.Messages[1].Content.Text() != "echo: one" || h.SessionID == "" {
		t.Fatalf("history = %+v", h)
	}
	byID := jsonOf[api.HistoryResult](c, "sessions", "history", h.SessionID, "--json", "--raw")
	if byID.SessionKey != "agent:main:main" || len(byID.Messages) != 2 {
		t.Fatalf("history by sessionId = %+v", byID)
	}
	human := c.ok("sessions", "history", "main", "--limit", "1")
	mustContain(t, "human history", human.stdout, "agent:main:main  (sessionId ", "assistant", "echo: one")
	if strings.Contains(human.stdout, "[external user") {
		t.Errorf("--limit 1 should show only the reply:\n%s", human.stdout)
	}
	full := c.ok("sessions", "history", "main")
	mustContain(t, "history badges", full.stdout, "user  [external user · webchat]")

	for _, tt := range []struct{ ref, want string }{
		{"6f1c7c59-0000-4000-8000-000000000000", "Session not found"},
		{"agent::", "invalid"},
	} {
		r := c.run("sessions", "history", tt.ref)
		if r.code != exitError || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("history %s: exit %d, stderr %q, want exit 1 and %q", tt.ref, r.code, r.stderr, tt.want)
		}
	}
	if r := c.run("sessions", "history", "agent:main:main", "--as", "agent:main:notes"); r.code != exitError || !strings.Contains(r.stderr, "visibility") {
		t.Errorf("history of main as notes: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestSessionsPatchResetDelete(t *testing.T) {
	c := newCLI(t)
	s := jsonOf[domain.Session](c, "sessions", "patch", "agent:main:notes", "--label", "notes", "--send-policy", "deny", "--thinking", "low", "--json")
	if s.Key != "agent:main:notes" || s.Label != "notes" || s.SendPolicy != "deny" || s.ThinkingLevel != "low" {
		t.Fatalf("patch = %+v", s)
	}
	if r := c.run("chat", "agent:main:notes", "hi"); r.code != exitError || !strings.Contains(r.stderr, "send blocked by session policy") {
		t.Fatalf("chat to a denied session: exit %d, stderr %q", r.code, r.stderr)
	}
	// A blank --label is refused before anything is sent (sessions.patch
	// refuses label "" too); --clear-label is its null. The refused
	// command changed nothing.
	if r := c.run("sessions", "patch", "agent:main:notes", "--label", " "); r.code != exitUsage || !strings.Contains(r.stderr, "--label: empty value") {
		t.Errorf("patch --label blank: exit %d, stderr %q; want exit 2 naming --label", r.code, r.stderr)
	}
	if s := jsonOf[domain.Session](c, "sessions", "patch", "agent:main:notes", "--thinking", "low", "--json"); s.Label != "notes" {
		t.Errorf("label after a refused blank --label = %q, want notes", s.Label)
	}
	human := c.ok("sessions", "patch", "agent:main:notes", "--send-policy", "inherit", "--clear-label")
	mustContain(t, "patch output", human.stdout, "patched agent:main:notes: label=- sendPolicy=inherit")
	// The verbose level: set (aliases normalized by sessions.patch), an
	// unknown one refused naming the field, cleared by its --clear-… flag.
	if s := jsonOf[domain.Session](c, "sessions", "patch", "agent:main:notes", "--verbose-level", "FULL", "--json"); s.VerboseLevel != "full" {
		t.Errorf("verboseLevel after --verbose-level FULL = %q, want full", s.VerboseLevel)
	}
	if r := c.run("sessions", "patch", "agent:main:notes", "--verbose-level", "loud"); r.code != exitError || !strings.Contains(r.stderr, "verboseLevel") {
		t.Errorf("patch --verbose-level loud: exit %d, stderr %q; want exit 1 naming verboseLevel", r.code, r.stderr)
	}
	human = c.ok("sessions", "patch", "agent:main:notes", "--clear-verbose-level")
	mustContain(t, "patch output", human.stdout, "verbose=-")
	if r := c.run("sessions", "patch", "main", "--model", "nope/none"); r.code != exitError {
		t.Errorf("patch with an unknown model: exit %d, stderr %q", r.code, r.stderr)
	}

	c.ok("chat", "agent:main:notes", "hi")
	before := jsonOf[api.HistoryResult](c, "sessions", "history", "agent:main:notes", "--json")
	reset := c.ok("sessions", "reset", "agent:main:notes")
	mustContain(t, "reset output", reset.stdout, "reset agent:main:notes: new sessionId ")
	after := jsonOf[api.HistoryResult](c, "sessions", "history", "agent:main:notes", "--json")
	if after.SessionID == before.SessionID || len(after.Messages) != 0 {
		t.Fatalf("after reset: sessionId %s (was %s), %d messages", after.SessionID, before.SessionID, len(after.Messages))
	}

	if r := c.run("sessions", "delete", "main"); r.code != exitError || !strings.Contains(r.stderr, "Cannot delete the main session") {
		t.Fatalf("delete main: exit %d, stderr %q", r.code, r.stderr)
	}
	del := jsonOf[map[string]any](c, "sessions", "delete", "agent:main:notes", "--json")
	if del["ok"] != true || del["key"] != "agent:main:notes" {
		t.Fatalf("delete --json = %v", del)
	}
	if r := c.run("sessions", "delete", "agent:main:notes"); r.code != exitError || !strings.Contains(r.stderr, "No session found") {
		t.Fatalf("second delete: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestSendSettlesAnnounce(t *testing.T) {
	c := newCLI(t)
	// The built-in model skips announces; this rule posts one.
	c.writeConfig(`{ models: { providers: { script: { rules: [
	  { when: { system: "Agent-to-agent announce step:" }, reply: "research got a message" } ] } } } }`)
	res := jsonOf[api.SendResult](c, "send", "agent:main:research", "find cats", "--json")
	if res.Status != "ok" || res.Reply != "echo: find cats" || res.SessionKey != "agent:main:research" || res.RunID == "" {
		t.Fatalf("send = %+v", res)
	}
	// The command waited for the announce step before it exited.
	runs := jsonOf[struct {
		Count int          `json:"count"`
		Runs  []domain.Run `json:"runs"`
	}](c, "runs", "list", "--session", "agent:main:research", "--json")
	kinds := map[domain.RunKind]domain.RunStatus{}
	for _, r := range runs.Runs {
		kinds[r.Kind] = r.Status
	}
	if kinds[domain.RunKindSend] != domain.RunOK || kinds[domain.RunKindAnnounce] != domain.RunOK {
		t.Fatalf("runs of the target = %v, want send and announce ok", kinds)
	}
	items := jsonOf[struct {
		Count int                 `json:"count"`
		Items []domain.OutboxItem `json:"items"`
	}](c, "outbox", "list", "--json", "--status", "delivered")
	if items.Count != 1 || items.Items[0].Kind != domain.OutboxAnnounce {
		t.Fatalf("delivered outbox = %+v", items)
	}

	human := c.ok("send", "agent:main:research", "again")
	mustContain(t, "send output", human.stdout, "status:", "ok", "delivery:  announce pending", "reply:", "echo: again")
	accepted := jsonOf[api.SendResult](c, "send", "agent:main:research", "later", "--timeout", "0", "--json")
	if accepted.Status != "accepted" {
		t.Fatalf("--timeout 0 = %+v", accepted)
	}
	// As a session: tree visibility forbids sending outside its tree.
	r := c.run("send", "agent:main:other", "hi", "--as", "agent:main:research", "--json")
	if r.code != exitError || !strings.Contains(r.stdout, `"status": "forbidden"`) {
		t.Fatalf("send as research: exit %d, stdout %s", r.code, r.stdout)
	}
	if r := c.run("send", "agent:main:x", "hi", "--as", "agent::"); r.code != exitError || !strings.Contains(r.stderr, `requester session "agent::"`) {
		t.Fatalf("send --as malformed: exit %d, stderr %q", r.code, r.stderr)
	}
}

// send --to queues a message straight to a recipient: one outbox row on
// the channel asked for, mirrored into the session named by --session.
func TestSendToRecipient(t *testing.T) {
	c := newCLI(t)
	res := jsonOf[api.DeliverResult](c, "send", "--channel", "webchat", "--to", "someone", "hello", "there", "--json")
	if res.Status != "queued" || res.Channel != "webchat" || res.To != "someone" || res.MessageID == "" || res.SessionKey != "agent:main:main" {
		t.Fatalf("send --to = %+v", res)
	}
	items := jsonOf[struct {
		Items []domain.OutboxItem `json:"items"`
	}](c, "outbox", "list", "--json")
	if len(items.Items) != 1 || items.Items[0].Kind != domain.OutboxDelivery || items.Items[0].To != "someone" {
		t.Fatalf("outbox after send --to = %+v", items)
	}
	for _, bad := range [][]string{{"send", "--to", "someone"}, {"send", "--channel", "webchat", "main", "hi"}} {
		if r := c.run(bad...); r.code != exitUsage {
			t.Errorf("%v: exit %d, stderr %q", bad, r.code, r.stderr)
		}
	}
}

func TestSpawnWaitsForChildAndAnnounce(t *testing.T) {
	c := newCLI(t)
	res := jsonOf[api.SpawnResult](c, "spawn", "count", "to", "three", "--label", "counter", "--json")
	if res.Status != "accepted" || !strings.Contains(res.ChildSessionKey, ":subagent:") || res.RunID == "" {
		t.Fatalf("spawn = %+v", res)
	}
	child := jsonOf[domain.Run](c, "runs", "get", res.RunID, "--json")
	if child.Status != domain.RunOK || child.Reply != "echo: count to three" {
		t.Fatalf("child run = %+v", child)
	}
	inbound := jsonOf[struct {
		Runs []domain.Run `json:"runs"`
	}](c, "runs", "list", "--session", "main", "--json")
	if len(inbound.Runs) != 1 || inbound.Runs[0].Kind != domain.RunKindInbound || inbound.Runs[0].Status != domain.RunOK {
		t.Fatalf("runs of main = %+v, want the announce's inbound run, ok", inbound.Runs)
	}
	h := jsonOf[api.HistoryResult](c, "sessions", "history", "main", "--json")
	if len(h.Messages) == 0 || !strings.Contains(h.Messages[0].Content.Text(), "Sub-agent finished: counter") {
		t.Fatalf("main history = %+v", h.Messages)
	}

	human := c.ok("spawn", "say hi")
	mustContain(t, "spawn output", human.stdout, "spawned agent:main:subagent:", "child finished: ok", "echo: say hi")

	if r := c.run("spawn", "x", "--attach", filepath.Join(c.dir, "missing.txt")); r.code != exitError || !strings.Contains(r.stderr, "--attach") {
		t.Fatalf("spawn --attach missing: exit %d, stderr %q", r.code, r.stderr)
	}
	f := filepath.Join(c.dir, "notes.md")
	if err := os.WriteFile(f, []byte("# notes"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := c.run("spawn", "x", "--attach", f); r.code != exitError || !strings.Contains(r.stderr, "attachments are disabled") {
		t.Fatalf("spawn --attach with attachments disabled: exit %d, stderr %q", r.code, r.stderr)
	}
}

// spawn carries the reference's mode, thread and sandbox: --thread makes
// the mode session, --mode session without --thread and sandbox=require of
// an unsandboxed agent are the engine's refusals (exit 1), a bad value is
// a usage error (exit 2).
func TestSpawnModeThreadSandbox(t *testing.T) {
	c := newCLI(t)
	if res := jsonOf[api.SpawnResult](c, "spawn", "stay", "--thread", "--json"); res.Status != "accepted" || res.Mode != "session" {
		t.Fatalf("spawn --thread = %+v, want accepted in mode session", res)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"spawn", "x", "--mode", "session"}, exitError, `mode="session" requires thread=true`},
		{[]string{"spawn", "x", "--sandbox", "require"}, exitError, `sandbox="require"`},
		{[]string{"spawn", "x", "--mode", "forever"}, exitUsage, `--mode must be run or session (got "forever")`},
		{[]string{"spawn", "x", "--sandbox", "maybe"}, exitUsage, `--sandbox must be inherit or require (got "maybe")`},
	} {
		if r := c.run(tc.args...); r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d with %q", tc.args, r.code, r.stderr, tc.code, tc.want)
		}
	}
}

func TestRuns(t *testing.T) {
	c := newCLI(t)
	out := jsonOf[chatOutput](c, "chat", "main", "hi", "--json")
	got := jsonOf[domain.Run](c, "runs", "get", out.RunID, "--json")
	if got.ID != out.RunID || got.Kind != domain.RunKindChat || got.Status != domain.RunOK || got.Reply != "echo: hi" {
		t.Fatalf("runs get = %+v", got)
	}
	human := c.ok("runs", "wait", out.RunID, "--timeout", "5")
	mustContain(t, "runs wait", human.stdout, "runId:", out.RunID, "status:", "ok", "reply:", "echo: hi")
	cancelled := jsonOf[domain.Run](c, "runs", "cancel", out.RunID, "--json")
	if cancelled.Status != domain.RunOK {
		t.Fatalf("cancelling an ended run changed it: %+v", cancelled)
	}
	list := c.ok("runs", "list", "--status", "ok,error")
	mustContain(t, "runs list", list.stdout, "RUNID", out.RunID, "chat", "echo: hi")

	for _, args := range [][]string{{"runs", "get", "nope"}, {"runs", "wait", "nope"}, {"runs", "cancel", "nope"}} {
		r := c.run(args...)
		if r.code != exitError || !strings.Contains(r.stderr, "run not found: nope") {
			t.Errorf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
}

func TestAgentsList(t *testing.T) {
	c := newCLI(t)
	res := jsonOf[policy.AgentsListResult](c, "agents", "list", "--json")
	if res.Requester != "main" || len(res.Agents) == 0 || res.Agents[0].ID != "main" {
		t.Fatalf("agents list = %+v", res)
	}
	mustContain(t, "agents list", c.ok("agents", "list").stdout, "ID", "main", "requester agent: main")
}

// TestLockedStateDir: while another process holds the state dir without
// serving it (an in-process `switchboard mcp`), commands that read work
// beside it and commands that write say who holds it.
func TestLockedStateDir(t *testing.T) {
	c := newCLI(t)
	c.ok("chat", "main", "written before the lock")
	lock, err := app.AcquireLock(c.stateDir(), "test holder")
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	if res := jsonOf[api.ListResult](c, "sessions", "list", "--json"); res.Count != 1 {
		t.Fatalf("read beside the holder: count %d", res.Count)
	}
	mustContain(t, "history beside the holder", c.ok("sessions", "history", "main").stdout, "written before the lock")
	r := c.run("chat", "main", "hi")
	if r.code != exitError || !strings.Contains(r.stderr, "state directory is in use") || !strings.Contains(r.stderr, "test holder") {
		t.Fatalf("locked write: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestGlobalFlagsAnywhere(t *testing.T) {
	c := newCLI(t)
	other := filepath.Join(c.dir, "other")
	c.ok("--state-dir", other, "chat", "main", "hi")
	res := jsonOf[api.ListResult](c, "sessions", "list", "--state-dir", other, "--json")
	if res.Count != 1 {
		t.Fatalf("--state-dir after the command: count %d, want 1", res.Count)
	}
	if def := jsonOf[api.ListResult](c, "--json", "sessions", "list"); def.Count != 0 {
		t.Fatalf("$SWITCHBOARD_STATE_DIR state should be untouched, count %d", def.Count)
	}
	if _, err := os.Stat(filepath.Join(other, "switchboard.db")); err != nil {
		t.Fatalf("--state-dir not used: %v", err)
	}
	bad := filepath.Join(c.dir, "bad.json5")
	if err := os.WriteFile(bad, []byte("{ session: { nope: 1 } }"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := c.run("sessions", "list", "--config", bad)
	if r.code != exitError || !strings.Contains(r.stderr, "nope") {
		t.Fatalf("--config with an unknown key: exit %d, stderr %q", r.code, r.stderr)
	}
	if v := c.ok("sessions", "list", "--verbose"); !strings.Contains(v.stderr, "level=") {
		t.Errorf("--verbose should log to stderr, got %q", v.stderr)
	}
}

// TestDetachLeavesWorkQueued: --detach records the run and exits at once;
// commands that only read leave it queued (finding 8); the next command
// that writes carries it out.
func TestDetachLeavesWorkQueued(t *testing.T) {
	c := newCLI(t)
	id := strings.TrimSpace(c.ok("chat", "main", "later please", "--detach").stdout)
	if id == "" {
		t.Fatal("chat --detach printed no runId")
	}
	for _, read := range [][]string{
		{"sessions", "list"}, {"sessions", "history", "main"}, {"runs", "list"}, {"runs", "get", id},
		{"agents", "list"}, {"outbox", "list"}, {"runs", "wait", id, "--timeout", "0"},
	} {
		c.run(read...)
		runs := jsonOf[struct {
			Runs []domain.Run `json:"runs"`
		}](c, "runs", "list", "--json")
		if len(runs.Runs) != 1 || runs.Runs[0].ID != id || runs.Runs[0].Status != domain.RunQueued {
			t.Fatalf("after %v: runs = %+v, want %s still queued", read, runs.Runs, id)
		}
	}
	// A command that writes runs what is queued ahead of its own run.
	if r := c.ok("chat", "main", "now"); r.stdout != "echo: now\n" {
		t.Fatalf("chat after the detached one = %q", r.stdout)
	}
	if r := jsonOf[domain.Run](c, "runs", "get", id, "--json"); r.Status != domain.RunOK || r.Reply != "echo: later please" {
		t.Fatalf("after the next write: %s %q", r.Status, r.Reply)
	}
}

// spawn --agent naming a remote A2A agent says it is remote and that
// sessions_send reaches it, not that the allowlist refuses it.
func TestSpawnRemoteAgent(t *testing.T) {
	c := newCLI(t)
	c.writeConfig(`{a2a: {remotes: [{id: "beta-gw", url: "http://127.0.0.1:1/.well-known/agent-card.json"}]}}`)
	r := c.run("spawn", "x", "--agent", "beta-gw")
	if r.code == 0 || !strings.Contains(r.stderr, "remote A2A agent") || !strings.Contains(r.stderr, "sessions_send") {
		t.Errorf("spawn --agent beta-gw: exit %d, stderr %q; want the remote-agent refusal", r.code, r.stderr)
	}
}
