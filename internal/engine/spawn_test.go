package engine

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

func spawnResult(t *testing.T, out api.ToolOutcome) api.SpawnResult {
	t.Helper()
	res, ok := out.Payload.(api.SpawnResult)
	if !ok {
		t.Fatalf("payload = %s, want api.SpawnResult", out.JSON())
	}
	return res
}

// announces returns the announce messages delivered into key.
func announces(h *harness, key string) []domain.Message {
	var out []domain.Message
	for _, m := range h.history(key) {
		if m.Kind == "announce" {
			out = append(out, m)
		}
	}
	return out
}

func TestSpawnAnnouncesResult(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{
		rule(config.ScriptWhen{Session: ":subagent:", Message: "^summarize (.*)$"}, "summary of $1"),
	}, nil)
	res := spawnResult(t, h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"summarize the docs","label":"docs"}`))
	if res.Status != "accepted" || res.RunID == "" || !strings.HasPrefix(res.ChildSessionKey, "agent:main:subagent:") || res.Mode != "run" {
		t.Fatalf("result = %+v", res)
	}
	h.waitFor("announce", func() bool { return len(announces(h, "main")) == 1 })
	a := announces(h, "main")[0].Content.Text()
	for _, want := range []string{"Status: ok", "summary of the docs", "untrusted", "Stats: runtime", "sessionKey " + res.ChildSessionKey, "transcript "} {
		if !strings.Contains(a, want) {
			t.Errorf("announce lacks %q:\n%s", want, a)
		}
	}
	child, err := h.st.GetSession(t.Context(), res.ChildSessionKey)
	if err != nil {
		t.Fatal(err)
	}
	if child.SpawnedBy != "agent:main:main" || child.SpawnDepth != 1 || child.Status != domain.SessionStatusDone || child.Label != "docs" || child.ArchiveAt == 0 {
		t.Fatalf("child row = %+v", child)
	}
	msgs := h.history(res.ChildSessionKey)
	if len(msgs) == 0 || msgs[0].Role != "user" || !strings.Contains(msgs[0].Content.Text(), "summarize the docs") {
		t.Fatalf("child transcript = %q", texts(msgs))
	}
	// The requester agent got a turn on the announce (default echo reply).
	h.waitFor("requester turn on the announce", func() bool {
		runs := runsOf(h, "agent:main:main", domain.RunKindInbound)
		return len(runs) == 1 && runs[0].Status == domain.RunOK
	})
	// Exactly one outbox row, delivered.
	items := outboxOf(h, domain.OutboxSubagentAnnounce)
	if len(items) != 1 || items[0].Status != domain.OutboxDelivered {
		t.Fatalf("announce outbox = %+v", items)
	}
}

// TestSpawnReturnsBeforeTheChildEnds proves sessions_spawn does not wait
// for the child: its model blocks for a minute, yet spawn answers while
// the child's run is still queued or running.
func TestSpawnReturnsBeforeTheChildEnds(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{
		{When: config.ScriptWhen{Session: ":subagent:"}, Reply: str("never"), DelayMs: 60_000},
	}, nil)
	res := spawnResult(t, h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"block"}`))
	r, err := h.st.GetRun(t.Context(), res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != domain.RunQueued && r.Status != domain.RunRunning {
		t.Fatalf("child run after spawn returned = %s, want queued or running", r.Status)
	}
}

func TestSpawnEmptyReplyUsesLatestToolResult(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{
		toolCall(config.ScriptWhen{Session: ":subagent:", Role: "user"}, "agents_list", nil),
		rule(config.ScriptWhen{Session: ":subagent:", Role: "toolResult"}, ""),
	}, func(c *config.Config) { c.Tools.Subagents.Tools.Allow = []string{"agents_list"} })
	spawnResult(t, h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"list agents"}`))
	h.waitFor("announce", func() bool { return len(announces(h, "main")) == 1 })
	a := announces(h, "main")[0].Content.Text()
	if !strings.Contains(a, `"requester": "main"`) || !strings.Contains(a, "latest tool result") {
		t.Fatalf("announce = %s", a)
	}
}

func TestSpawnAnnounceSkipAndCleanupDelete(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{
		rule(config.ScriptWhen{Session: ":subagent:"}, "ANNOUNCE_SKIP"),
	}, nil)
	res := spawnResult(t, h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"quiet","cleanup":"delete"}`))
	h.waitFor("announce item handled", func() bool {
		items := outboxOf(h, domain.OutboxSubagentAnnounce)
		return len(items) == 1 && items[0].Status == domain.OutboxDelivered
	})
	if n := len(announces(h, "main")); n != 0 {
		t.Fatalf("ANNOUNCE_SKIP child announced %d times", n)
	}
	if _, err := h.st.GetSession(t.Context(), res.ChildSessionKey); err == nil {
		t.Fatalf("cleanup=delete kept the child session")
	}
}

// A mode=session child is kept even with cleanup=delete (OpenClaw forces
// keep for persistent children): it is the session the requester was told
// to keep talking to.
func TestSpawnSessionModeIgnoresCleanupDelete(t *testing.T) {
	h := newHarness(t, nil, nil)
	res := spawnResult(t, h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"stay","thread":true,"cleanup":"delete"}`))
	if res.Mode != "session" {
		t.Fatalf("spawn mode = %q, want session", res.Mode)
	}
	h.waitFor("announce item handled", func() bool {
		items := outboxOf(h, domain.OutboxSubagentAnnounce)
		return len(items) == 1 && items[0].Status == domain.OutboxDelivered
	})
	if _, err := h.st.GetSession(t.Context(), res.ChildSessionKey); err != nil {
		t.Fatalf("a mode=session child was deleted after its announce: %v", err)
	}
}

func TestSpawnTimeoutAndCancel(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{
		{When: config.ScriptWhen{Session: ":subagent:"}, Reply: str("never"), DelayMs: 60_000},
	}, nil)
	res := spawnResult(t, h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"slow","runTimeoutSeconds":1}`))
	r, err := h.e.waitRun(t.Context(), res.RunID, 10*time.Second)
	if err != nil || r.Status != domain.RunTimeout {
		t.Fatalf("timed-out child = %+v, %v", r, err)
	}
	h.waitFor("timeout announce", func() bool { return len(announces(h, "main")) == 1 })
	if a := announces(h, "main")[0].Content.Text(); !strings.Contains(a, "Status: timeout") {
		t.Fatalf("announce = %s", a)
	}

	res2 := spawnResult(t, h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"slow too"}`))
	out := h.call(Requester{}, api.ToolSubagents, `{"action":"cancel","target":"`+res2.ChildSessionKey+`"}`)
	if out.IsError {
		t.Fatalf("cancel: %s", out.JSON())
	}
	r, err = h.e.waitRun(t.Context(), res2.RunID, 10*time.Second)
	if err != nil || r.Status != domain.RunCancelled {
		t.Fatalf("cancelled child = %+v, %v", r, err)
	}
	h.waitFor("cancel announce", func() bool { return len(announces(h, "main")) == 2 })
	if a := announces(h, "main")[1].Content.Text(); !strings.Contains(a, "Status: cancelled") {
		t.Fatalf("announce = %s", a)
	}
	child, _ := h.st.GetSession(t.Context(), res2.ChildSessionKey)
	if child.Status != domain.SessionStatusKilled {
		t.Fatalf("cancelled child status = %q", child.Status)
	}
}

func TestSpawnChildCannotSpawn(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{
		toolCall(config.ScriptWhen{Session: ":subagent:", Role: "user"}, "sessions_spawn", map[string]any{"task": "grandchild"}),
	}, nil)
	res := spawnResult(t, h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"try to spawn"}`))
	r, _ := h.e.waitRun(t.Context(), res.RunID, 10*time.Second)
	if !strings.Contains(r.Reply, "tool not available: sessions_spawn") {
		t.Fatalf("child reply = %q, want tool not available", r.Reply)
	}
	// Called directly as the child, the engine refuses too.
	out := h.call(Requester{SessionKey: res.ChildSessionKey}, api.ToolSessionsSpawn, `{"task":"x"}`)
	if !out.IsError || !strings.Contains(errorOf(out), "maxSpawnDepth=1") {
		t.Fatalf("direct spawn from child: %s", out.JSON())
	}
}

func TestSpawnAllowlistAndModel(t *testing.T) {
	h := newHarness(t, nil, func(c *config.Config) {
		c.Agents.List = []config.AgentConfig{{ID: "main", Subagents: &config.AgentSubagents{AllowAgents: []string{"research"}}}, {ID: "research"}, {ID: "ops"}}
	})
	res := spawnResult(t, h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"t","agentId":"research"}`))
	if !strings.HasPrefix(res.ChildSessionKey, "agent:research:subagent:") {
		t.Fatalf("child key = %s", res.ChildSessionKey)
	}
	out := h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"t","agentId":"ops"}`)
	if !out.IsError || !strings.Contains(string(out.JSON()), "forbidden") {
		t.Fatalf("disallowed agent: %s", out.JSON())
	}
	out = h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"t","model":"nope/model"}`)
	if !out.IsError || !strings.Contains(errorOf(out), "valid: script") {
		t.Fatalf("unknown model: %s", out.JSON())
	}
	res = spawnResult(t, h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"t","model":"other/model"}`))
	if res.ModelApplied != "other/model" {
		t.Fatalf("modelApplied = %q", res.ModelApplied)
	}
}

func TestSpawnBadInput(t *testing.T) {
	h := newHarness(t, nil, nil)
	cases := []struct{ args, want string }{
		{`{}`, "task required"},
		{`{"task":""}`, "task required"},
		{`{"task":1}`, "task must be a string"},
		{`{"task":"t","mode":"session"}`, `mode="session" requires thread=true`},
		{`{"task":"t","mode":"forever"}`, "mode must be one of run|session"},
		{`{"task":"t","cleanup":"shred"}`, "cleanup must be one of delete|keep"},
		{`{"task":"t","sandbox":"maybe"}`, "sandbox must be one of inherit|require"},
		{`{"task":"t","runTimeoutSeconds":-5}`, "runTimeoutSeconds must be at least 0"},
		{`{"task":"t","thinking":"extreme"}`, "thinking must be one of"},
		{`{"task":"t","channel":"discord"}`, `sessions_spawn does not support "channel"`},
		{`{"task":"t","colour":"red"}`, `unknown parameter "colour"`},
		{`{"task":"t","attachments":[{"name":"a.txt","content":"hi"}]}`, "attachments are disabled"},
		{`{"task":"t","attachments":[{"name":"a.txt","content":"hi"},{"name":"b.txt"}]}`, "attachments[1].content required"},
		{`{"task":"t","attachments":[{"name":"a.txt","content":null}]}`, "attachments[0].content required"},
		{`{"task":"t","attachments":["a.txt"]}`, "attachments[0] must be an object"},
		{`{"task":"t","label":"` + strings.Repeat("l", 513) + `"}`, "label is too long"},
	}
	for _, c := range cases {
		out := h.call(Requester{}, api.ToolSessionsSpawn, c.args)
		if !out.IsError || !strings.Contains(errorOf(out), c.want) {
			t.Errorf("args %.60s: %s, want error containing %q", c.args, out.JSON(), c.want)
		}
	}
}

func TestSpawnAttachments(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{
		rule(config.ScriptWhen{Session: ":subagent:"}, "read them"),
	}, func(c *config.Config) { c.Tools.SessionsSpawn.Attachments.Enabled = true })
	content := base64.StdEncoding.EncodeToString([]byte("secret payload"))
	res := spawnResult(t, h.call(Requester{}, api.ToolSessionsSpawn,
		`{"task":"use files","attachments":[{"name":"a.txt","content":"`+content+`","encoding":"base64"},{"name":"b.md","content":"# hi"}]}`))
	if res.Attachments == nil || res.Attachments.Count != 2 || len(res.Attachments.Files[0].Sha256) != 64 {
		t.Fatalf("receipt = %+v", res.Attachments)
	}
	dir := filepath.Join(h.dir, "agents", "main", "workspace", res.Attachments.RelDir)
	// Attachments are removed after the announce unless retained.
	h.waitFor("announce", func() bool { return len(announces(h, "main")) == 1 })
	h.waitFor("attachments removed", func() bool { _, err := os.Stat(dir); return os.IsNotExist(err) })
	out := h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"t","attachments":[{"name":"../x","content":"hi"}]}`)
	if !out.IsError || !strings.Contains(errorOf(out), "attachments_invalid_name") {
		t.Fatalf("bad name: %s", out.JSON())
	}
}
