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

// Lock is an exclusive advisory lock (flock) on a state directory, so two
// engines never write one store. The kernel drops it when the process
// dies, which makes it the one test of whether a process still owns the
// state dir: a pid can be reused, a lock cannot outlive its holder.
type Lock struct{ f *os.File }

// LockInfo is what the lock file says about its holder.
type LockInfo struct {
	PID   int    `json:"pid"`
	Owner string `json:"owner"`
	Since string `json:"since"`
}

// ErrLocked is returned when another process holds the state-dir lock.
var ErrLocked = errors.New("state directory is in use")

// lockAttempts and lockRetry bound how long AcquireLock waits out a
// LockHeld probe (which holds a shared lock for a moment).
const (
	lockAttempts = 5
	lockRetry    = 10 * time.Millisecond
)

// LockFile is the path of the state-dir lock file.
func LockFile(stateDir string) string { return filepath.Join(stateDir, "switchboard.lock") }

// AcquireLock takes the lock of stateDir or says who holds it.
func AcquireLock(stateDir, owner string) (*Lock, error) {
	path := LockFile(stateDir)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	for i := 0; ; i++ {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil || !errors.Is(err, syscall.EWOULDBLOCK) || i == lockAttempts-1 {
			break
		}
		time.Sleep(lockRetry) // a LockHeld probe lets go at once
	}
	if err != nil {
		info := readLockInfo(path)
		f.Close()
		return nil, fmt.Errorf("%w: %s is held by %s (pid %d, since %s); commands that read still work beside it; to share it for writes, run `switchboard gateway` instead (commands and `switchboard mcp` then go through it), or point --state-dir elsewhere", ErrLocked, stateDir, orUnknown(info.Owner), info.PID, orUnknown(info.Since))
	}
	info, _ := json.Marshal(LockInfo{PID: os.Getpid(), Owner: owner, Since: time.Now().UTC().Format(time.RFC3339)})
	_ = f.Truncate(0)
	_, _ = f.WriteAt(info, 0)
	return &Lock{f: f}, nil
}

// LockHeld reports whether a process holds the lock of stateDir and, if
// so, what the lock file says about it. It probes with a shared lock that
// it drops at once; it never takes the state dir.
func LockHeld(stateDir string) (LockInfo, bool, error) {
	path := LockFile(stateDir)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return LockInfo{}, false, nil
	}
	if err != nil {
		return LockInfo{}, false, fmt.Errorf("lock %s: %w", path, err)
	}
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
	if err == nil {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return LockInfo{}, false, nil
	}
	if !errors.Is(err, syscall.EWOULDBLOCK) {
		return LockInfo{}, false, fmt.Errorf("lock %s: %w", path, err)
	}
	return readLockInfo(path), true, nil
}

// readLockInfo reads what the lock file says (zero when unreadable).
func readLockInfo(path string) LockInfo {
	var info LockInfo
	b, _ := os.ReadFile(path)
	_ = json.Unmarshal(b, &info)
	return info
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
