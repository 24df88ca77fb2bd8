package app

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
)

func testOptions(t *testing.T) Options {
	t.Helper()
	cfg := config.Default()
	cfg.Agents.Defaults.Model = "script"
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	return Options{StateDir: t.TempDir(), Config: cfg, Getenv: func(string) string { return "" }, Owner: "test"}
}

func closeApp(t *testing.T, a *App) {
	t.Helper()
	if err := a.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// Open, OpenReadOnly and the demo share one wiring: Open holds the lock,
// a read-only open works beside it, and Close gives the lock back.
func TestOpenAndReadOnlyShareTheWiring(t *testing.T) {
	ctx := context.Background()
	opts := testOptions(t)
	a, err := Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Engine.Chat(ctx, api.Operator(), api.ChatRequest{SessionKey: "main", Message: "hi"}); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, opts); !errors.Is(err, ErrLocked) {
		t.Fatalf("second Open = %v, want ErrLocked", err)
	}
	ro, err := OpenReadOnly(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	res, err := ro.Engine.ListSessions(ctx, api.Operator(), api.ListRequest{})
	if err != nil || len(res.Sessions) != 1 {
		t.Fatalf("read-only list = %+v, %v", res, err)
	}
	closeApp(t, ro)
	closeApp(t, a)
	again, err := Open(ctx, opts)
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	closeApp(t, again)
}

// An open that fails half-way leaves nothing held: the lock is released.
func TestFailedOpenReleasesTheLock(t *testing.T) {
	ctx := context.Background()
	opts := testOptions(t)
	if err := os.MkdirAll(DBPath(opts.StateDir), 0o700); err != nil { // the store cannot open a directory
		t.Fatal(err)
	}
	if _, err := Open(ctx, opts); err == nil {
		t.Fatal("Open succeeded on a directory in place of the store")
	}
	if err := os.Remove(DBPath(opts.StateDir)); err != nil {
		t.Fatal(err)
	}
	a, err := Open(ctx, opts)
	if err != nil {
		t.Fatalf("Open after a failed open: %v", err)
	}
	closeApp(t, a)
}
