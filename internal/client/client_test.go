package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/client"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/engine"
	"github.com/switchboard-go/switchboard/internal/gateway"
	"github.com/switchboard-go/switchboard/internal/model/script"
	"github.com/switchboard-go/switchboard/internal/store/sqlite"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type scriptModels struct{ m *script.Model }

func (s scriptModels) Resolve(ref string) (domain.Provider, string, error) {
	if ref == "script" {
		return s.m, "script", nil
	}
	return nil, "", domain.Invalid("unknown model %q; valid: script", ref)
}

func (s scriptModels) ValidateThinking(ref, level string) error { return nil }

// newGateway runs a real gateway (engine, SQLite, script model) in
// httptest and returns a client for it.
func newGateway(t *testing.T, token string) (*client.Client, *engine.Engine) {
	t.Helper()
	slow := "slow reply"
	rules := []config.ScriptRule{{When: config.ScriptWhen{Message: "^slow"}, Reply: &slow, DelayMs: 5000}}
	cfg := &config.Config{}
	cfg.Session.MainKey = "main"
	cfg.Tools.Sessions.Visibility = "tree"
	cfg.Agents.Defaults.Model = "script"
	cfg.Agents.Defaults.Subagents = config.SubagentsDefaults{MaxSpawnDepth: 1, MaxChildrenPerAgent: 5, MaxConcurrent: 8,
		ArchiveAfterMinutes: 60, AllowAgents: []string{"work"}}
	cfg.Agents.Defaults.Sandbox.SessionToolsVisibility = "spawned"
	cfg.Agents.List = []config.AgentConfig{{ID: "main"}, {ID: "work"}}
	cfg.Models.Providers = map[string]config.ProviderConfig{"script": {Rules: rules}}
	m, err := script.New(rules, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	st, err := sqlite.Open(t.Context(), filepath.Join(dir, "switchboard.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := engine.New(engine.Options{Config: cfg, Store: st, Models: scriptModels{m}, StateDir: dir, MaintenanceInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	srv, err := gateway.New(gateway.Options{Engine: eng, Config: cfg, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	hc := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("gateway shutdown: %v", err)
		}
		ts.Close()
		hc.CloseIdleConnections()
		if err := eng.Close(ctx); err != nil {
			t.Errorf("engine close: %v", err)
		}
		st.Close()
	})
	return client.New(ts.URL, token, hc), eng
}

func TestClient(t *testing.T) {
	c, _ := newGateway(t, "s3cret")
	ctx := t.Context()
	op := api.Operator()

	if err := c.Health(ctx); err != nil {
		t.Fatalf("health: %v", err)
	}

	chat, err := c.Chat(ctx, op, api.ChatRequest{SessionKey: "main", Message: "hello client"})
	if err != nil || chat.Run.ID == "" || chat.SessionKey != "agent:main:main" {
		t.Fatalf("chat = %+v, %v", chat, err)
	}
	run, err := c.WaitRun(ctx, op, api.WaitRequest{RunID: chat.Run.ID, Timeout: 10 * time.Second})
	if err != nil || run.Status != domain.RunOK || run.Reply != "echo: hello client" {
		t.Fatalf("wait = %+v, %v", run, err)
	}
	if got, err := c.GetRun(ctx, op, chat.Run.ID); err != nil || got.Status != domain.RunOK {
		t.Fatalf("run = %+v, %v", got, err)
	}

	list, err := c.ListSessions(ctx, op, api.ListRequest{Limit: 10, MessageLimit: 1})
	if err != nil || list.Count != 1 || list.Sessions[0].Key != "agent:main:main" || len(list.Sessions[0].Messages) != 1 {
		t.Fatalf("list = %+v, %v", list, err)
	}
	hist, err := c.History(ctx, op, api.HistoryRequest{SessionKey: "agent:main:main", Limit: 10, Raw: true})
	if err != nil || len(hist.Messages) != 2 || hist.Messages[0].Content.Text() != "hello client" {
		t.Fatalf("history = %+v, %v", hist, err)
	}

	timeout := 10
	sent, err := c.Send(ctx, op, api.SendRequest{SessionKey: "agent:work:main", Message: "ping", TimeoutSeconds: &timeout})
	if err != nil || sent.Status != "ok" || sent.Reply != "echo: ping" {
		t.Fatalf("send = %+v, %v", sent, err)
	}

	s, err := c.Patch(ctx, op, api.PatchRequest{Key: "main", Label: api.SetValue("home"), SendPolicy: api.SetValue("deny")})
	if err != nil || s.Label != "home" || s.SendPolicy != "deny" {
		t.Fatalf("patch = %+v, %v", s, err)
	}
	_, err = c.Chat(ctx, op, api.ChatRequest{SessionKey: "main", Message: "blocked"})
	var ce *client.Error
	if !errors.As(err, &ce) || ce.StatusCode != 400 || domain.ErrorCode(err) != domain.CodeInvalid || domain.ErrorMessage(err) != "send blocked by session policy" {
		t.Fatalf("chat to a denied session: %v", err)
	}
	if _, err = c.Patch(ctx, op, api.PatchRequest{Key: "main", SendPolicy: api.SetValue("")}); domain.ErrorMessage(err) != `invalid sendPolicy (use "allow"|"deny")` {
		t.Fatalf("an empty policy = %v, want it refused", err)
	}
	if s, err = c.Patch(ctx, op, api.PatchRequest{Key: "main", SendPolicy: api.SetNull()}); err != nil || s.SendPolicy != "" || s.Label != "home" {
		t.Fatalf("clear policy = %+v, %v", s, err)
	}
	old := s.SessionID
	if s, err = c.Reset(ctx, op, api.ResetRequest{Key: "main"}); err != nil || s.SessionID == old {
		t.Fatalf("reset = %+v, %v", s, err)
	}

	sp, err := c.Spawn(ctx, op, api.SpawnRequest{Task: "slow background task", AgentID: "work", Label: "bg"})
	if err != nil || sp.Status != "accepted" || !strings.HasPrefix(sp.ChildSessionKey, "agent:work:subagent:") {
		t.Fatalf("spawn = %+v, %v", sp, err)
	}
	if _, err := c.Spawn(ctx, op, api.SpawnRequest{Task: "x", Mode: "sideways"}); domain.ErrorCode(err) != domain.CodeInvalid {
		t.Fatalf("spawn with a bad mode: %v", err)
	}
	runs, err := c.ListRuns(ctx, op, api.RunsRequest{Statuses: []domain.RunStatus{domain.RunQueued, domain.RunRunning}})
	if err != nil || len(runs) != 1 || runs[0].ID != sp.RunID {
		t.Fatalf("runs = %+v, %v", runs, err)
	}
	waited, err := c.WaitRun(ctx, op, api.WaitRequest{RunID: sp.RunID, Timeout: time.Millisecond})
	if err != nil || domain.RunTerminal(waited.Status) {
		t.Fatalf("short wait = %+v, %v", waited, err)
	}
	if cr, err := c.CancelRun(ctx, op, sp.RunID); err != nil || !cr.Cancelled || cr.ID != sp.RunID {
		t.Fatalf("cancel = %+v, %v", cr, err)
	}
	if cr, err := c.CancelRun(ctx, op, sp.RunID); err != nil || cr.Cancelled || cr.Status != domain.RunCancelled {
		t.Fatalf("cancel again = %+v, %v (want already ended)", cr, err)
	}
	if waited, err = c.WaitRun(ctx, op, api.WaitRequest{RunID: sp.RunID, Timeout: 10 * time.Second}); err != nil || waited.Status != domain.RunCancelled {
		t.Fatalf("after cancel = %+v, %v", waited, err)
	}
	if _, err := c.Delete(ctx, op, api.DeleteRequest{Key: sp.ChildSessionKey}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, err := c.Delete(ctx, op, api.DeleteRequest{Key: "main"}); domain.ErrorCode(err) != domain.CodeInvalid {
		t.Fatalf("delete main: %v", err)
	}

	agents, err := c.AgentsList(ctx, op)
	if err != nil || agents.Requester != "main" || len(agents.Agents) != 2 {
		t.Fatalf("agents = %+v, %v", agents, err)
	}

	out := c.CallTool(ctx, op.ActingAs("main"), "sessions_list", json.RawMessage(`{"limit":5}`))
	if out.IsError || !strings.Contains(string(out.JSON()), `"sessions"`) {
		t.Fatalf("tool = %+v", out)
	}
	out = c.CallTool(ctx, op, "sessions_history", json.RawMessage(`{}`))
	if !out.IsError || !strings.Contains(string(out.JSON()), "sessionKey required") {
		t.Fatalf("tool without args = %s", out.JSON())
	}
	// Outbox works where the gateway has the route, else says it has none.
	if _, err := c.Outbox(ctx, op, api.OutboxRequest{}); err != nil && !errors.Is(err, client.ErrNoOutboxRoute) {
		t.Fatalf("outbox: %v", err)
	}

	if _, err := c.GetRun(ctx, op, "no-such-run"); domain.ErrorCode(err) != domain.CodeNotFound || !strings.Contains(err.Error(), "run not found") {
		t.Fatalf("missing run: %v", err)
	}
	if _, err := c.GetRun(ctx, op, ""); err == nil {
		t.Fatal("empty run id accepted")
	}
}

func TestClientErrors(t *testing.T) {
	c, _ := newGateway(t, "s3cret")
	ctx := t.Context()
	hc := &http.Client{Transport: &http.Transport{}}
	defer hc.CloseIdleConnections()

	tests := []struct {
		name     string
		c        *client.Client
		wantCode string
		wantMsg  string
	}{
		{"no token", client.New(urlOf(t, c), "", hc), domain.CodeForbidden, "unauthorized"},
		{"wrong token", client.New(urlOf(t, c), "nope", hc), domain.CodeForbidden, "token mismatch"},
		{"bad URL", client.New("ftp://x", "", hc), "", "want http://"},
		{"nothing listening", client.New("http://127.0.0.1:1", "", hc), "", "gateway 127.0.0.1:1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.c.ListSessions(ctx, api.Operator(), api.ListRequest{})
			if err == nil || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Fatalf("err = %v, want %q", err, tt.wantMsg)
			}
			if tt.wantCode != "" && domain.ErrorCode(err) != tt.wantCode {
				t.Fatalf("code = %s, want %s", domain.ErrorCode(err), tt.wantCode)
			}
		})
	}
	if err := client.New(urlOf(t, c), "", hc).Health(ctx); err != nil {
		t.Fatalf("health needs no token: %v", err)
	}
}

// urlOf returns the gateway URL a client calls.
func urlOf(t *testing.T, c *client.Client) string {
	t.Helper()
	return c.BaseURL()
}

// The session routes round-trip: resolve, one row, defaults, a direct
// delivery and the outbox listing it.
func TestClientSessionRoutes(t *testing.T) {
	c, _ := newGateway(t, "s3cret")
	ctx := t.Context()
	op := api.Operator()
	chat, err := c.Chat(ctx, op, api.ChatRequest{SessionKey: "main", Message: "hello client"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitRun(ctx, op, api.WaitRequest{RunID: chat.Run.ID, Timeout: 10 * time.Second}); err != nil {
		t.Fatal(err)
	}
	label := "home"
	if _, err := c.Patch(ctx, op, api.PatchRequest{Key: "main", Label: api.SetValue(label)}); err != nil {
		t.Fatal(err)
	}

	res, err := c.Resolve(ctx, op, api.ResolveRequest{Label: "home"})
	if err != nil || res.Key != "agent:main:main" {
		t.Fatalf("resolve = %+v, %v", res, err)
	}
	// As a session that may not see it, it does not exist.
	other := op.ActingAs("agent:work:main")
	_, hidden := c.Resolve(ctx, other, api.ResolveRequest{Key: "agent:main:main"})
	_, unknown := c.Resolve(ctx, other, api.ResolveRequest{Key: "agent:main:nope"})
	if domain.ErrorCode(hidden) != domain.CodeNotFound || domain.ErrorMessage(hidden) != "No session found: agent:main:main" ||
		domain.ErrorCode(unknown) != domain.CodeNotFound {
		t.Fatalf("hidden: %v; unknown: %v", hidden, unknown)
	}

	row, err := c.GetSession(ctx, op, "main")
	if err != nil || row.Key != "agent:main:main" || row.Label != "home" || row.Model != "script" || row.InputTokens == 0 {
		t.Fatalf("row = %+v, %v", row, err)
	}
	if _, err := c.GetSession(ctx, other, "agent:main:main"); domain.ErrorCode(err) != domain.CodeNotFound {
		t.Fatalf("hidden row: %v", err)
	}

	d, err := c.Defaults(ctx, other)
	if err != nil || d.MainSessionKey != "agent:work:main" || d.DefaultAgentID != "main" {
		t.Fatalf("defaults = %+v, %v", d, err)
	}

	sent, err := c.Deliver(ctx, op, api.DeliverRequest{SessionKey: "main", To: "someone", Message: "out", IdempotencyKey: "k1"})
	if err != nil || sent.Status != "queued" || sent.MessageID == "" || sent.SessionKey != "agent:main:main" {
		t.Fatalf("deliver = %+v, %v", sent, err)
	}
	if _, err := c.Deliver(ctx, other, api.DeliverRequest{Message: "x"}); domain.ErrorCode(err) != domain.CodeForbidden {
		t.Fatalf("deliver as a session: %v", err)
	}
	items, err := c.Outbox(ctx, op, api.OutboxRequest{SessionKey: "agent:main:main", Limit: 10})
	if err != nil {
		t.Fatalf("outbox: %v", err)
	}
	found := false
	for _, it := range items {
		found = found || strconv.FormatInt(it.ID, 10) == sent.MessageID
	}
	if !found {
		t.Fatalf("outbox %+v lacks message %s", items, sent.MessageID)
	}
}
