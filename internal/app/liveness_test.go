package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/store/sqlite"
)

// A gateway runs iff the state-dir lock is held and gateway.json names its
// holder; a pid that is alive (pid 1, this process) proves nothing.
func TestGatewayLivenessIsTheLock(t *testing.T) {
	tests := []struct {
		name     string
		pid      int
		holder   string // owner holding the lock ("" = free)
		wantLive bool
	}{
		{name: "Pid1LockFree", pid: 1},
		{name: "OwnPidLockFree", pid: os.Getpid()},
		{name: "HeldByACommand", pid: os.Getpid(), holder: "cli"},
		{name: "HeldByAnotherGateway", pid: 1, holder: GatewayOwner},
		{name: "HeldByTheGateway", pid: os.Getpid(), holder: GatewayOwner, wantLive: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.holder != "" {
				l, err := AcquireLock(dir, tc.holder)
				if err != nil {
					t.Fatal(err)
				}
				defer l.Release()
			}
			if err := WriteGatewayInfo(dir, GatewayInfo{URL: "http://127.0.0.1:1", PID: tc.pid}); err != nil {
				t.Fatal(err)
			}
			_, live, err := ReadGatewayInfo(dir)
			if err != nil || live != tc.wantLive {
				t.Fatalf("ReadGatewayInfo live = %v, %v; want %v", live, err, tc.wantLive)
			}
		})
	}
}

// LockHeld probes without taking the state dir: the holder keeps it, and
// once it lets go the next AcquireLock succeeds.
func TestLockHeldProbe(t *testing.T) {
	dir := t.TempDir()
	if _, held, err := LockHeld(dir); held || err != nil {
		t.Fatalf("no lock file: held=%v err=%v", held, err)
	}
	l, err := AcquireLock(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	info, held, err := LockHeld(dir)
	if err != nil || !held || info.Owner != "test" || info.PID != os.Getpid() {
		t.Fatalf("LockHeld = %+v, %v, %v", info, held, err)
	}
	if _, err := AcquireLock(dir, "other"); !errors.Is(err, ErrLocked) {
		t.Fatalf("second AcquireLock = %v, want ErrLocked", err)
	}
	l.Release()
	if _, held, err := LockHeld(dir); held || err != nil {
		t.Fatalf("after Release: held=%v err=%v", held, err)
	}
	l2, err := AcquireLock(dir, "other")
	if err != nil {
		t.Fatalf("AcquireLock after a probe: %v", err)
	}
	l2.Release()
}

// Taking the lock removes a stale gateway.json (pid 1 in a container is
// "alive" forever; it must not block the next start).
func TestOpenRemovesStaleGatewayFile(t *testing.T) {
	opts := testOptions(t)
	if err := WriteGatewayInfo(opts.StateDir, GatewayInfo{URL: "http://127.0.0.1:1", PID: 1}); err != nil {
		t.Fatal(err)
	}
	a, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer closeApp(t, a)
	if _, err := os.Stat(GatewayFile(opts.StateDir)); !os.IsNotExist(err) {
		t.Fatalf("stale gateway.json still there after Open: %v", err)
	}
}

// A zero-byte store beside transcripts is refused with instructions; in a
// fresh state dir it is a new store.
func TestOpenZeroByteStore(t *testing.T) {
	ctx := context.Background()
	opts := testOptions(t)
	if err := os.WriteFile(DBPath(opts.StateDir), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := Open(ctx, opts)
	if err != nil {
		t.Fatalf("zero-byte store in a fresh state dir: %v", err)
	}
	closeApp(t, a)

	opts = testOptions(t)
	sessions := filepath.Join(opts.StateDir, "agents", "main", "sessions")
	if err := os.MkdirAll(sessions, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sessions, "s1.jsonl"), []byte(`{"type":"session"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(DBPath(opts.StateDir), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, open := range []func(context.Context, Options) (*App, error){Open, OpenReadOnly} {
		_, err = open(ctx, opts)
		if !errors.Is(err, sqlite.ErrEmptyStore) {
			t.Fatalf("Open = %v, want ErrEmptyStore", err)
		}
		for _, want := range []string{"1 transcripts exist", "from a backup", "switchboard import openclaw"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not say %q", err, want)
			}
		}
	}
	if fi, err := os.Stat(DBPath(opts.StateDir)); err != nil || fi.Size() != 0 {
		t.Fatalf("the refused store changed: %v %v", fi, err)
	}
	// The lock was given back.
	l, err := AcquireLock(opts.StateDir, "test")
	if err != nil {
		t.Fatal(err)
	}
	l.Release()
}
