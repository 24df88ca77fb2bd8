package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/pgtest"
	"github.com/switchboard-go/switchboard/internal/store/postgres"
)

var pg pgtest.Shared

func TestMain(m *testing.M) { os.Exit(pg.Main(m)) }

// With store.driver postgres the app runs on the database at store.url: a
// chat turn lands there (a second process, opening it read-only, sees it),
// and the mirror goes where transcripts.dir says.
func TestOpenPostgresStore(t *testing.T) {
	ctx := context.Background()
	url := pg.Database(t)
	mirror := t.TempDir()
	cfg := config.Default()
	cfg.Store = config.StoreConfig{Driver: config.StorePostgres, URL: url}
	cfg.Transcripts.Dir = mirror
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	opts := Options{StateDir: t.TempDir(), Config: cfg, Getenv: func(string) string { return "" }, Owner: "test"}
	a, err := Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := a.Store.(*postgres.Store); !ok {
		t.Fatalf("store is %T, want *postgres.Store", a.Store)
	}
	res, err := a.Engine.Chat(ctx, api.Operator(), api.ChatRequest{SessionKey: "main", Message: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	run, err := a.Engine.WaitRun(ctx, api.Operator(), api.WaitRequest{RunID: res.Run.ID, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if run.Reply != "echo: hi" {
		t.Errorf("reply %q (status %s), want %q", run.Reply, run.Status, "echo: hi")
	}
	if _, err := os.Stat(DBPath(opts.StateDir)); !os.IsNotExist(err) {
		t.Errorf("a SQLite file was created in the state dir (%v)", err)
	}
	list, err := a.Engine.ListSessions(ctx, api.Operator(), api.ListRequest{})
	if err != nil || len(list.Sessions) != 1 {
		t.Fatalf("list = %+v, %v", list, err)
	}
	if p := list.Sessions[0].TranscriptPath; !strings.HasPrefix(p, mirror+string(filepath.Separator)) {
		t.Errorf("transcriptPath %q is not under transcripts.dir %s", p, mirror)
	}
	closeApp(t, a)

	other := opts
	other.StateDir = t.TempDir() // another machine's state dir, the same database
	ro, err := OpenReadOnly(ctx, other)
	if err != nil {
		t.Fatal(err)
	}
	defer closeApp(t, ro)
	hist, err := ro.Engine.History(ctx, api.Operator(), api.HistoryRequest{SessionKey: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if len(hist.Messages) != 2 {
		t.Errorf("history on another state dir: %d messages, want 2", len(hist.Messages))
	}
}

// transcripts.mirror false: no mirror at all, and no transcriptPath.
func TestMirrorOff(t *testing.T) {
	ctx := context.Background()
	opts := testOptions(t)
	off := false
	opts.Config.Transcripts.Mirror = &off
	a, err := Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer closeApp(t, a)
	res, err := a.Engine.Chat(ctx, api.Operator(), api.ChatRequest{SessionKey: "main", Message: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Engine.WaitRun(ctx, api.Operator(), api.WaitRequest{RunID: res.Run.ID, Timeout: 30 * time.Second}); err != nil {
		t.Fatal(err)
	}
	list, err := a.Engine.ListSessions(ctx, api.Operator(), api.ListRequest{})
	if err != nil || len(list.Sessions) != 1 {
		t.Fatalf("list = %+v, %v", list, err)
	}
	if p := list.Sessions[0].TranscriptPath; p != "" {
		t.Errorf("transcriptPath %q with the mirror off", p)
	}
	if m, _ := filepath.Glob(TranscriptGlob(opts.StateDir)); len(m) != 0 {
		t.Errorf("mirror files written with the mirror off: %v", m)
	}
}

// Two writing processes on one database, from different state dirs, are
// replicas: both open (they claim runs under leases), and a run submitted
// through one is waited on through the other.
func TestTwoEnginesPerDatabase(t *testing.T) {
	ctx := context.Background()
	cfg := config.Default()
	cfg.Store = config.StoreConfig{Driver: config.StorePostgres, URL: pg.Database(t)}
	off := false
	cfg.Transcripts.Mirror = &off
	open := func() *App {
		a, err := Open(ctx, Options{StateDir: t.TempDir(), Config: cfg, Getenv: func(string) string { return "" }, Owner: "test"})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	a, b := open(), open()
	defer closeApp(t, a)
	defer closeApp(t, b)
	res, err := a.Engine.Chat(ctx, api.Operator(), api.ChatRequest{SessionKey: "main", Message: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := b.Engine.WaitRun(ctx, api.Operator(), api.WaitRequest{RunID: res.Run.ID, Timeout: 20 * time.Second})
	if err != nil || r.Status != domain.RunOK || r.Reply != "echo: hi" {
		t.Fatalf("wait through the other engine: %+v %v", r, err)
	}
}

// Two engines on one database are two replicas, and the spawn gate is the
// store's: concurrent sessions_spawn calls through both respect
// maxChildrenPerAgent together. Before the gate was the store's, each
// engine counted only under its own mutex, so the two could together
// admit up to twice the limit.
func TestSpawnLimitsAcrossEngines(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const limit, perEngine = 2, 8
	never := "never"
	cfg := config.Default()
	cfg.Store = config.StoreConfig{Driver: config.StorePostgres, URL: pg.Database(t)}
	off := false
	cfg.Transcripts.Mirror = &off
	cfg.Agents.Defaults.Subagents.MaxChildrenPerAgent = limit
	cfg.Agents.Defaults.Subagents.MaxConcurrent = 100
	// Children stay active for the whole test.
	if cfg.Models.Providers == nil {
		cfg.Models.Providers = map[string]config.ProviderConfig{}
	}
	script := cfg.Models.Providers["script"]
	script.Rules = append([]config.ScriptRule{{When: config.ScriptWhen{Session: ":subagent:"}, Reply: &never, DelayMs: 120_000}}, script.Rules...)
	cfg.Models.Providers["script"] = script
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	open := func() *App {
		a, err := Open(ctx, Options{StateDir: t.TempDir(), Config: cfg, Getenv: func(string) string { return "" }, Owner: "test"})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	a, b := open(), open()
	defer closeApp(t, a)
	defer closeApp(t, b)

	// Every call waits at the barrier, then all go at once, half through
	// each engine.
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	outs := make([]api.ToolOutcome, 2*perEngine)
	for i := range outs {
		e := []*App{a, b}[i%2].Engine
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			ready.Done()
			<-start
			outs[i] = e.CallTool(ctx, api.Operator(), api.ToolSessionsSpawn, []byte(fmt.Sprintf(`{"task":"child %d"}`, i)))
		}()
	}
	ready.Wait()
	close(start)
	done.Wait()

	accepted := 0
	for i, out := range outs {
		if !out.IsError {
			accepted++
			continue
		}
		if js := string(out.JSON()); !strings.Contains(js, "maxChildrenPerAgent=2") {
			t.Errorf("call %d refused with %s, want the maxChildrenPerAgent refusal", i, js)
		}
	}
	active, err := a.Store.ListRuns(ctx, domain.RunQuery{Kinds: []domain.RunKind{domain.RunKindSubagent},
		Statuses: []domain.RunStatus{domain.RunQueued, domain.RunRunning}})
	if err != nil {
		t.Fatal(err)
	}
	if accepted != limit || len(active) != limit {
		t.Fatalf("%d of %d concurrent spawns through two engines accepted, %d children active; want %d (maxChildrenPerAgent)",
			accepted, len(outs), len(active), limit)
	}
}

// The label gate is the store's too: concurrent patches through two
// engines giving one label to different sessions leave it on exactly one.
func TestLabelUniqueAcrossEngines(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const perEngine = 8
	cfg := config.Default()
	cfg.Store = config.StoreConfig{Driver: config.StorePostgres, URL: pg.Database(t)}
	off := false
	cfg.Transcripts.Mirror = &off
	open := func() *App {
		a, err := Open(ctx, Options{StateDir: t.TempDir(), Config: cfg, Getenv: func(string) string { return "" }, Owner: "test"})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	a, b := open(), open()
	defer closeApp(t, a)
	defer closeApp(t, b)

	var ready, done sync.WaitGroup
	start := make(chan struct{})
	errs := make([]error, 2*perEngine)
	for i := range errs {
		e := []*App{a, b}[i%2].Engine
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			ready.Done()
			<-start
			_, errs[i] = e.Patch(ctx, api.Operator(), api.PatchRequest{Key: fmt.Sprintf("agent:main:s%d", i), Label: api.SetValue("shared")})
		}()
	}
	ready.Wait()
	close(start)
	done.Wait()

	ok := 0
	for i, err := range errs {
		switch {
		case err == nil:
			ok++
		case !strings.Contains(err.Error(), "label already in use"):
			t.Errorf("patch %d: %v, want ok or label already in use", i, err)
		}
	}
	rows, err := a.Store.ListSessions(ctx, domain.SessionQuery{Label: "shared"})
	if err != nil {
		t.Fatal(err)
	}
	if ok != 1 || len(rows) != 1 {
		t.Fatalf("%d of %d concurrent patches through two engines set the label, %d sessions carry it; want 1", ok, len(errs), len(rows))
	}
}
