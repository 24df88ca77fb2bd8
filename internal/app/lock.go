package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// Lock is an exclusive advisory lock on a state directory, so two engines
// never write one store. The kernel drops it when the process dies.
type Lock struct{ f *os.File }

// LockInfo is what the lock file says about its holder.
type LockInfo struct {
	PID   int    `json:"pid"`
	Owner string `json:"owner"`
	Since string `json:"since"`
}

// ErrLocked is returned when another process holds the state-dir lock.
var ErrLocked = errors.New("state directory is in use")

// AcquireLock takes the lock of stateDir or says who holds it.
func AcquireLock(stateDir, owner string) (*Lock, error) {
	path := filepath.Join(stateDir, "switchboard.lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		var info LockInfo
		b, _ := os.ReadFile(path)
		_ = json.Unmarshal(b, &info)
		f.Close()
		return nil, fmt.Errorf("%w: %s is held by %s (pid %d, since %s); commands that read still work beside it; to share it for writes, run `switchboard gateway` instead (commands and `switchboard mcp` then go through it), or point --state-dir elsewhere", ErrLocked, stateDir, orUnknown(info.Owner), info.PID, orUnknown(info.Since))
	}
	info, _ := json.Marshal(LockInfo{PID: os.Getpid(), Owner: owner, Since: time.Now().UTC().Format(time.RFC3339)})
	_ = f.Truncate(0)
	_, _ = f.WriteAt(info, 0)
	return &Lock{f: f}, nil
}

// Release drops the lock.
func (l *Lock) Release() {
	if l == nil || l.f == nil {
		return
	}
	_ = syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	l.f.Close()
	l.f = nil
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
