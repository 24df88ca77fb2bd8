package cli

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/titanous/json5"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/app"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/engine"
	"github.com/switchboard-go/switchboard/internal/sessionkey"
)

//go:embed demo.json5
var demoRulesJSON5 []byte

// demoResearch is the session main's agent talks to in the demo.
const demoResearch = "agent:main:research"

// demoStepTimeout bounds each step; the script model answers at once, so
// hitting it means something is wrong.
const demoStepTimeout = 30 * time.Second

func demoCommand() *command {
	return &command{
		name:    "demo",
		summary: "run a scripted conversation offline and show what happens",
		help: "Runs a self-contained conversation on a temporary state dir with the offline `script` model (no\n" +
			"API key, well under a second): a chat to main; main's agent calling sessions_send to another session,\n" +
			"with reply-back turns and an announce; a sub-agent spawned with sessions_spawn whose result is\n" +
			"announced back; then sessions_list and sessions_history as main's agent sees them.\n" +
			"--rules prints the script rules the demo uses (an example of models.providers.script.rules).",
		example: []string{"switchboard demo", "switchboard demo --rules", "switchboard demo --keep"},
		define: func(e *env, fs *flag.FlagSet) func([]string) error {
			rules := fs.Bool("rules", false, "print the demo's script rules (JSON5) and exit")
			keep := fs.Bool("keep", false, "keep the temporary state dir and print its path")
			return func(pos []string) error {
				if err := e.wantArgs(pos, 0, 0); err != nil {
					return err
				}
				if *rules {
					_, err := e.stdout.Write(demoRulesJSON5)
					return err
				}
				return runDemo(e, *keep)
			}
		},
	}
}

// demoRules decodes the embedded rules strictly.
func demoRules() ([]config.ScriptRule, error) {
	dec := json5.NewDecoder(bytes.NewReader(demoRulesJSON5))
	dec.DisallowUnknownFields()
	var rules []config.ScriptRule
	if err := dec.Decode(&rules); err != nil {
		return nil, fmt.Errorf("demo rules: %w", err)
	}
	return rules, nil
}

// demoConfig is the demo's configuration: the defaults, one agent main on
// the script model with the demo's rules, and visibility "agent" so main's
// sessions can reach each other.
func demoConfig(rules []config.ScriptRule) (*config.Config, error) {
	c := config.Default()
	c.Tools.Sessions.Visibility = "agent"
	c.Agents.Defaults.Model = "script"
	c.Agents.List = []config.AgentConfig{{ID: "main", Name: "Main", Default: true}}
	if c.Models.Providers == nil {
		c.Models.Providers = map[string]config.ProviderConfig{}
	}
	c.Models.Providers["script"] = config.ProviderConfig{Rules: rules}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("demo config:\n%w", err)
	}
	return c, nil
}

// demo is one run of the demo: an engine on a temporary state dir and
// what was already shown of each transcript.
type demo struct {
	e     *env
	w     io.Writer
	eng   *engine.Engine
	keys  sessionkey.Resolver
	dir   string
	shown map[string]int64 // session key → last Seq printed
}

func runDemo(e *env, keep bool) (err error) {
	start := time.Now()
	rules, err := demoRules()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "switchboard-demo-")
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	if !keep {
		defer os.RemoveAll(dir)
	}
	cfg, err := demoConfig(rules)
	if err != nil {
		return err
	}
	eng, closeEngine, err := openDemoEngine(e.ctx, dir, cfg, e)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, closeEngine()) }()

	d := &demo{e: e, w: e.stdout, eng: eng, keys: cfg.KeyResolver(), dir: dir, shown: map[string]int64{}}
	fmt.Fprintf(d.w, "switchboard demo: a scripted conversation with the offline `script` model (no API key).\n")
	fmt.Fprintf(d.w, "State dir: %s (temporary). The rules: `switchboard demo --rules`.\n", dir)
	steps := []func() error{d.stepChat, d.stepSend, d.stepSpawn, d.stepTools}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	fmt.Fprintf(d.w, "\nDone in %s.", time.Since(start).Round(10*time.Millisecond))
	if keep {
		fmt.Fprintf(d.w, " The state dir is kept: switchboard sessions list --state-dir %s", dir)
	}
	fmt.Fprintf(d.w, "\nTry it yourself: switchboard chat main \"hello\"   (docs/cli.md lists every command)\n")
	return nil
}

// openDemoEngine opens dir through app.Open (the one wiring of a state
// dir) with the demo's config instead of a config file.
func openDemoEngine(ctx context.Context, dir string, cfg *config.Config, e *env) (*engine.Engine, func() error, error) {
	a, err := app.Open(ctx, app.Options{StateDir: dir, Config: cfg, Getenv: e.getenv, Logger: e.logger(), Owner: "demo",
		MaintenanceInterval: 50 * time.Millisecond})
	if err != nil {
		return nil, nil, fmt.Errorf("demo: %w", err)
	}
	closeFn := func() error {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
		defer cancel()
		return a.Close(cctx)
	}
	return a.Engine, closeFn, nil
}

func (d *demo) heading(n int, title string) {
	fmt.Fprintf(d.w, "\n━━ %d. %s ━━\n", n, title)
}

// chat sends a user message to main and waits until everything it caused
// has settled.
func (d *demo) chat(msg string) (api.ChatResult, error) {
	fmt.Fprintf(d.w, "$ switchboard chat main %q\n", msg)
	ctx, cancel := context.WithTimeout(d.e.ctx, demoStepTimeout)
	defer cancel()
	res, err := d.eng.Chat(ctx, api.Operator(), api.ChatRequest{SessionKey: "main", Message: msg})
	if err != nil {
		return res, err
	}
	if err := d.eng.Idle(ctx); err != nil {
		return res, fmt.Errorf("demo: waiting for the conversation to settle: %w", err)
	}
	return res, nil
}

// transcript prints the messages of key not shown yet.
func (d *demo) transcript(key string, maxLines int) error {
	res, err := d.eng.History(d.e.ctx, api.Operator(), api.HistoryRequest{SessionKey: key, Limit: int(api.HistoryLimit.Max), IncludeTools: true, Raw: true})
	if err != nil {
		return err
	}
	fmt.Fprintf(d.w, "\n  %s\n", d.canonical(res.SessionKey))
	var buf bytes.Buffer
	for _, m := range res.Messages {
		if m.Seq <= d.shown[key] {
			continue
		}
		d.shown[key] = m.Seq
		writeMessage(&buf, m.Message, msgStyle{maxLines: maxLines})
	}
	_, err = fmt.Fprintln(d.w, indent(buf.String(), "  "))
	return err
}

// canonical prints the operator's `main` as its canonical key, as every
// human output does.
func (d *demo) canonical(key string) string {
	if key == "main" {
		return d.keys.MainSessionKey("")
	}
	return key
}

// runsSince prints the runs created since ms, oldest first.
func (d *demo) runsSince(ms int64) error {
	runs, err := d.eng.ListRuns(d.e.ctx, api.Operator(), api.RunsRequest{Limit: int(api.RunsListLimit.Max)})
	if err != nil {
		return err
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].CreatedAt < runs[j].CreatedAt })
	fmt.Fprintln(d.w, "\n  runs (each one durable, with a runId):")
	var buf bytes.Buffer
	t := newTable(&buf, "KIND", "SESSION", "STATUS", "REPLY")
	for _, r := range runs {
		if r.CreatedAt < ms {
			continue
		}
		reply := clip(r.Reply, 60)
		if silentReply(r.Reply) && r.Reply != "" {
			reply = strings.TrimSpace(r.Reply) + " (silent)"
		}
		t.row(string(r.Kind), r.SessionKey, string(r.Status), reply)
	}
	if err := t.flush(); err != nil {
		return err
	}
	_, err = fmt.Fprintln(d.w, indent(buf.String(), "    "))
	return err
}

func (d *demo) stepChat() error {
	d.heading(1, "A chat message to main (a user typing on the webchat channel)")
	if _, err := d.chat("hello switchboard"); err != nil {
		return err
	}
	return d.transcript("main", 0)
}

func (d *demo) stepSend() error {
	d.heading(2, "main's agent calls sessions_send to "+demoResearch)
	fmt.Fprintln(d.w, "The target answers, a reply-back exchange follows (main ends it with REPLY_SKIP),")
	fmt.Fprintln(d.w, "then research's announce step posts a note to its channel through the outbox.")
	since := time.Now().UnixMilli()
	if _, err := d.chat("ask research about lane scheduling"); err != nil {
		return err
	}
	if err := d.transcript("main", 6); err != nil {
		return err
	}
	if err := d.transcript(demoResearch, 6); err != nil {
		return err
	}
	if err := d.runsSince(since); err != nil {
		return err
	}
	items, err := d.eng.Outbox(d.e.ctx, api.Operator(), api.OutboxRequest{})
	if err != nil {
		return err
	}
	for _, it := range items {
		if it.Kind == domain.OutboxAnnounce {
			fmt.Fprintf(d.w, "  outbox: announce to %s (channel %s): %s\n", it.SessionKey, orDefault(it.Channel, "unknown"), it.Status)
		}
	}
	return nil
}

func (d *demo) stepSpawn() error {
	d.heading(3, "main's agent spawns a sub-agent with sessions_spawn")
	fmt.Fprintln(d.w, "The child runs in its own session; its result is announced back to main, whose agent gets a turn.")
	since := time.Now().UnixMilli()
	if _, err := d.chat("spawn write a haiku about switchboard"); err != nil {
		return err
	}
	children, err := d.eng.Subagents(d.e.ctx, api.Operator().ActingAs("main"), api.SubagentsRequest{Action: "list"})
	if err != nil {
		return err
	}
	for _, c := range children.Subagents {
		if err := d.transcript(c.ChildSessionKey, 4); err != nil {
			return err
		}
	}
	if err := d.transcript("main", 12); err != nil {
		return err
	}
	return d.runsSince(since)
}

func (d *demo) stepTools() error {
	d.heading(4, "sessions_list and sessions_history, called as main's agent would")
	ctx := d.e.ctx
	as := api.Operator().ActingAs("main")
	fmt.Fprintln(d.w, "$ sessions_list {}")
	out := d.eng.CallTool(ctx, as, api.ToolSessionsList, []byte(`{}`))
	res, ok := out.Payload.(api.ListResult)
	if out.IsError || !ok {
		return fmt.Errorf("demo: sessions_list failed: %s", out.JSON())
	}
	var buf bytes.Buffer
	t := newTable(&buf, "KEY", "KIND", "CHANNEL", "TOKENS", "LABEL")
	for _, s := range res.Sessions {
		t.row(s.Key, s.Kind, s.Channel, fmt.Sprint(s.TotalTokens), orDash(s.Label))
	}
	if err := t.flush(); err != nil {
		return err
	}
	fmt.Fprintln(d.w, indent(buf.String(), "  "))
	fmt.Fprintf(d.w, "  (%d sessions; transcripts are mirrored as JSONL under %s)\n", res.Count, filepath.Join(d.dir, "agents", "main", "sessions"))

	fmt.Fprintf(d.w, "\n$ sessions_history {\"sessionKey\": %q, \"limit\": 4}\n", demoResearch)
	hout := d.eng.CallTool(ctx, as, api.ToolSessionsHistory, []byte(`{"sessionKey":"`+demoResearch+`","limit":4}`))
	h, ok := hout.Payload.(api.HistoryResult)
	if hout.IsError || !ok {
		return fmt.Errorf("demo: sessions_history failed: %s", hout.JSON())
	}
	buf.Reset()
	for _, m := range h.Messages {
		writeMessage(&buf, m.Message, msgStyle{maxLines: 4, display: d.canonical})
	}
	fmt.Fprintln(d.w, indent(buf.String(), "  "))
	return nil
}
