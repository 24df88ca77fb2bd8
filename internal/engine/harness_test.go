package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/model/script"
	"github.com/switchboard-go/switchboard/internal/store/sqlite"
	"github.com/switchboard-go/switchboard/internal/testkit"
	"github.com/switchboard-go/switchboard/internal/transcript"
)

// scriptModels resolves every model reference starting with "script" to
// the script model, and knows a fake "other/model" (no thinking) for
// override tests.
type scriptModels struct{ m *script.Model }

func (s scriptModels) Resolve(ref string) (domain.Provider, string, error) {
	if ref == "script" || strings.HasPrefix(ref, "script/") || ref == "other/model" {
		return s.m, strings.TrimPrefix(ref, "script/"), nil
	}
	return nil, "", domain.Invalid("unknown model %q; valid: script, other/model", ref)
}

// ValidateThinking: the fake other/model thinks only "off", worded as the
// model registry refuses a level.
func (s scriptModels) ValidateThinking(ref, level string) error {
	if ref == "other/model" && level != "" && level != "off" {
		return domain.Invalid("model %q does not support thinking level %q (supported: off)", ref, level)
	}
	return nil
}

type harness struct {
	t   testing.TB
	e   *Engine
	st  *sqlite.Store
	dir string
	cfg *config.Config
}

// newHarness builds an engine on a fresh state dir with the given script
// rules; mutate adjusts the config first.
func newHarness(t testing.TB, rules []config.ScriptRule, mutate func(*config.Config)) *harness {
	t.Helper()
	return newHarnessOpts(t, rules, mutate, nil)
}

// newHarnessOpts is newHarness with the engine's options changed by
// options before it is built.
func newHarnessOpts(t testing.TB, rules []config.ScriptRule, mutate func(*config.Config), options func(*Options)) *harness {
	t.Helper()
	dir := t.TempDir()
	cfg := testConfig()
	cfg.Models.Providers = map[string]config.ProviderConfig{"script": {Rules: rules}}
	if mutate != nil {
		mutate(cfg)
	}
	m, err := script.New(cfg.Models.Providers["script"].Rules, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(dir, "switchboard.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Config: cfg, Store: st, Models: scriptModels{m}, Mirror: transcript.New(dir, time.Now),
		StateDir: dir, MaintenanceInterval: 20 * time.Millisecond}
	if options != nil {
		options(&o)
	}
	e, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, e: e, st: st, dir: dir, cfg: cfg}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := e.Close(ctx); err != nil {
			t.Errorf("close engine: %v", err)
		}
		st.Close()
	})
	return h
}

// testConfig is a default config for tests (independent of the loader).
func testConfig() *config.Config { return testkit.Config() }

func str(s string) *string { return &s }

// chat sends a user message and waits for its run.
func (h *harness) chat(key, msg string) domain.Run {
	h.t.Helper()
	res, err := h.e.chat(context.Background(), api.ChatRequest{SessionKey: key, Message: msg})
	if err != nil {
		h.t.Fatalf("chat %s %q: %v", key, msg, err)
	}
	r, err := h.e.waitRun(context.Background(), res.Run.ID, 10*time.Second)
	if err != nil {
		h.t.Fatal(err)
	}
	if !domain.RunTerminal(r.Status) {
		h.t.Fatalf("run %s did not end: %s", r.ID, r.Status)
	}
	return r
}

// call calls a tool and decodes nothing: tests read ToolOutcome.Payload.
func (h *harness) call(req Requester, tool, args string) api.ToolOutcome {
	h.t.Helper()
	return h.e.callTool(context.Background(), req, tool, []byte(args))
}

// history reads a session's raw transcript.
func (h *harness) history(key string) []domain.Message {
	h.t.Helper()
	res, err := h.e.history(context.Background(), Requester{Operator: true}, api.HistoryRequest{SessionKey: key, Limit: 1000, IncludeTools: true, Raw: true})
	if err != nil {
		h.t.Fatal(err)
	}
	out := make([]domain.Message, len(res.Messages))
	for i, m := range res.Messages {
		out[i] = m.Message
	}
	return out
}

// waitFor polls a condition on store state with a deadline. It waits on
// engine events between checks rather than sleeping.
func (h *harness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	h.waitForWithin(what, 15*time.Second, cond)
}

// waitForWithin re-checks cond when the engine has published events since
// the last check, at most once per tick: checking on every event would make
// a busy test spend its time in the condition's queries.
func (h *harness) waitForWithin(what string, limit time.Duration, cond func() bool) {
	h.t.Helper()
	ch, stop := h.e.Subscribe(1024)
	defer stop()
	deadline := time.After(limit)
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	if cond() {
		return
	}
	for {
		select {
		case <-ch:
			continue
		case <-tick.C:
		case <-deadline:
			h.t.Fatalf("timed out after %s waiting for %s", limit, what)
		}
		if cond() {
			return
		}
	}
}

func rule(when config.ScriptWhen, reply string) config.ScriptRule {
	return config.ScriptRule{When: when, Reply: &reply}
}

// listed decodes a sessions_list row's messages.
func listed(t testing.TB, lms []api.ListMessage) []domain.Message {
	t.Helper()
	out := make([]domain.Message, len(lms))
	for i, lm := range lms {
		m, err := lm.Message()
		if err != nil {
			t.Fatal(err)
		}
		out[i] = m
	}
	return out
}

func texts(msgs []domain.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, fmt.Sprintf("%s: %s", m.Role, m.Content.Text()))
	}
	return out
}
