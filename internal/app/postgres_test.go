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

// twoEngines opens two apps on one fresh database (two replicas, each with
// its own state dir), with mutate applied to their config; the test closes
// them.
func twoEngines(ctx context.Context, t *testing.T, mutate func(*config.Config)) (a, b *App) {
	t.Helper()
	cfg := config.Default()
	cfg.Store = config.StoreConfig{Driver: config.StorePostgres, URL: pg.Database(t)}
	off := false
	cfg.Transcripts.Mirror = &off
	if mutate != nil {
		mutate(cfg)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	open := func() *App {
		a, err := Open(ctx, Options{StateDir: t.TempDir(), Config: cfg, Getenv: func(string) string { return "" }, Owner: "test"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { closeApp(t, a) })
		return a
	}
	return open(), open()
}

// withSlowRule puts a script rule first: replies in sessions matching
// session take 120 s, so their runs stay active for the whole test.
func withSlowRule(session string) func(*config.Config) {
	return func(cfg *config.Config) {
		if cfg.Models.Providers == nil {
			cfg.Models.Providers = map[string]config.ProviderConfig{}
		}
		slow := "slow"
		script := cfg.Models.Providers["script"]
		script.Rules = append([]config.ScriptRule{{When: config.ScriptWhen{Session: session}, Reply: &slow, DelayMs: 120_000}}, script.Rules...)
		cfg.Models.Providers["script"] = script
	}
}

// atOnce runs call(i) for i in [0, n) on n goroutines released together
// behind a barrier, and returns once every call has.
func atOnce(n int, call func(i int)) {
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			ready.Done()
			<-start
			call(i)
		}()
	}
	ready.Wait()
	close(start)
	done.Wait()
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
	slow := withSlowRule(":subagent:")
	a, b := twoEngines(ctx, t, func(cfg *config.Config) {
		cfg.Agents.Defaults.Subagents.MaxChildrenPerAgent = limit
		cfg.Agents.Defaults.Subagents.MaxConcurrent = 100
		slow(cfg)
	})
	outs := make([]api.ToolOutcome, 2*perEngine)
	atOnce(len(outs), func(i int) {
		e := []*App{a, b}[i%2].Engine
		outs[i] = e.CallTool(ctx, api.Operator(), api.ToolSessionsSpawn, []byte(fmt.Sprintf(`{"task":"child %d"}`, i)))
	})

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
	a, b := twoEngines(ctx, t, nil)
	errs := make([]error, 16)
	atOnce(len(errs), func(i int) {
		e := []*App{a, b}[i%2].Engine
		_, errs[i] = e.Patch(ctx, api.Operator(), api.PatchRequest{Key: fmt.Sprintf("agent:main:s%d", i), Label: api.SetValue("shared")})
	})
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

// And the idempotency gate: duplicates of a "/reset <text>" chat with one
// key, sent through two engines at once, make one turn that no duplicate's
// reset stops.
func TestDuplicateResetChatAcrossEngines(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const key = "agent:main:dup"
	a, b := twoEngines(ctx, t, withSlowRule(key))
	res := make([]api.ChatResult, 8)
	errs := make([]error, len(res))
	atOnce(len(res), func(i int) {
		e := []*App{a, b}[i%2].Engine
		res[i], errs[i] = e.Chat(ctx, api.Operator(), api.ChatRequest{SessionKey: key, Message: "/reset hello",
			IdempotencyKey: "dup-1", TimeoutSeconds: 600})
	})
	for i, err := range errs {
		if err != nil {
			t.Fatalf("caller %d: %v", i, err)
		}
		if res[i].Run.ID != res[0].Run.ID {
			t.Fatalf("caller %d got run %s, caller 0 run %s: want one run", i, res[i].Run.ID, res[0].Run.ID)
		}
	}
	run, err := a.Store.GetRun(ctx, res[0].Run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != domain.RunQueued && run.Status != domain.RunRunning {
		t.Fatalf("the one run is %s (%s), want it still going: a duplicate's reset stopped it", run.Status, run.Error)
	}
	s, err := a.Store.GetSession(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if run.SessionID != "" && run.SessionID != s.SessionID {
		t.Fatalf("run is in generation %s, the session in %s: the session was reset after the run began", run.SessionID, s.SessionID)
	}
}
