package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
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
