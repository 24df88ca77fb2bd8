package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// Several gateway replicas may share one transcripts directory (their
// store is one PostgreSQL database). A session's runs are serial across
// replicas, so its live appends come from one process at a time; but a
// replica that starts repairs the mirror from the store while others run,
// and its repair may append a message that the replica running the
// session appends a moment later. With Mirror.Shared every write to a
// file holds an exclusive flock on it across processes, and both the
// repair and the live appends are append-only reconciliations: a message
// whose id is already in the file's tail is not written again. Any number
// of replicas may repair at once without duplicating a line.

// SafeForReplicas reports whether the mirror may be repaired while other
// processes write the same directory (Shared).
func (m *Mirror) SafeForReplicas() bool { return m.Shared }

// openLocked opens (creating when create) path for appending and takes
// its exclusive flock; unlock releases it and closes the file.
func openLocked(path string, create bool) (f *os.File, unlock func(), err error) {
	flags := os.O_RDWR | os.O_APPEND
	if create {
		flags |= os.O_CREATE
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, nil, err
		}
	}
	f, err = os.OpenFile(path, flags, 0o600)
	if err != nil {
		return nil, nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return f, func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// tailIDs returns the ids of the complete message lines in f's last
// tailBytes, and the last of them ("" when none).
func tailIDs(f *os.File) (ids map[string]bool, last string, err error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, "", err
	}
	off := max(fi.Size()-tailBytes, 0)
	buf := make([]byte, fi.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil {
		return nil, "", err
	}
	ids = map[string]bool{}
	lines := bytes.Split(buf, []byte{'\n'})
	for i := 0; i < len(lines)-1; i++ { // (the last element follows the last newline)
		if off > 0 && i == 0 {
			continue // may start mid-line
		}
		e, reason, _ := parseEntry(lines[i], 0)
		if reason == "" && e.Type == TypeMessage {
			ids[e.ID] = true
			last = e.ID
		}
	}
	return ids, last, nil
}

// ErrNoFile is Append's answer when a shared directory has no file for a
// session whose earlier messages it should hold (the file was removed
// while the gateway ran): appending alone would leave a file of the
// latest messages whose tail matches the store, which no repair would
// ever complete. The caller rebuilds the file from the store instead
// (Reconcile).
var ErrNoFile = errors.New("transcript file missing: rebuild it from the store")

// appendShared is Append for a shared directory: under the file's flock,
// the messages already in its tail (a peer's repair wrote them) are
// skipped.
func (m *Mirror) appendShared(path, agentID, sessionID string, msgs []domain.Message) error {
	f, unlock, err := openLocked(path, true)
	if err != nil {
		return fmt.Errorf("transcript append: %w", err)
	}
	defer unlock()
	if fi, err := f.Stat(); err == nil && fi.Size() == 0 && msgs[0].Seq > 1 {
		return fmt.Errorf("transcript append %s: %w", path, ErrNoFile)
	}
	ids, _, err := tailIDs(f)
	if err != nil {
		return fmt.Errorf("transcript append %s: %w", path, err)
	}
	todo := make([]domain.Message, 0, len(msgs))
	for _, msg := range msgs {
		if msg.ID == "" || !ids[msg.ID] {
			todo = append(todo, msg)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	if err := m.writeBatch(f, agentID, sessionID, todo); err != nil {
		return fmt.Errorf("transcript append %s: %w", path, err)
	}
	if m.Sync {
		if err := f.Sync(); err != nil {
			return fmt.Errorf("transcript append %s: %w", path, err)
		}
	}
	return nil
}

// reconcileShared is Reconcile for a shared directory: the file is
// created in place (not renamed over, which would drop a peer's append)
// and completed under its flock.
func (m *Mirror) reconcileShared(path, agentID, sessionID string, msgs []domain.Message) (SyncResult, error) {
	_, err := os.Stat(path)
	missing := errors.Is(err, fs.ErrNotExist)
	if err != nil && !missing {
		return SyncUnchanged, fmt.Errorf("transcript reconcile: %w", err)
	}
	if missing && len(msgs) == 0 {
		return SyncUnchanged, nil
	}
	f, unlock, err := openLocked(path, true)
	if err != nil {
		return SyncUnchanged, fmt.Errorf("transcript reconcile: %w", err)
	}
	defer unlock()
	fi, err := f.Stat()
	if err != nil {
		return SyncUnchanged, fmt.Errorf("transcript reconcile: %w", err)
	}
	result := SyncAppended
	from := 0
	if fi.Size() == 0 {
		result = SyncCreated
	} else {
		_, last, err := tailIDs(f)
		if err != nil {
			return SyncUnchanged, fmt.Errorf("transcript reconcile %s: %w", path, err)
		}
		if last == "" {
			_, entries, _, err := ReadFile(path)
			if err != nil {
				return SyncUnchanged, fmt.Errorf("transcript reconcile: %w", err)
			}
			for _, e := range entries {
				if e.Type == TypeMessage {
					last = e.ID
				}
			}
		}
		if last != "" {
			from = -1
			for i := len(msgs) - 1; i >= 0; i-- {
				if msgs[i].ID == last {
					from = i + 1
					break
				}
			}
			if from < 0 {
				return SyncDiverged, nil
			}
		}
	}
	if from == len(msgs) {
		return SyncUnchanged, nil
	}
	if err := m.writeBatch(f, agentID, sessionID, msgs[from:]); err != nil {
		return SyncUnchanged, fmt.Errorf("transcript reconcile %s: %w", path, err)
	}
	if m.Sync {
		if err := f.Sync(); err != nil {
			return SyncUnchanged, fmt.Errorf("transcript reconcile %s: %w", path, err)
		}
	}
	return result, nil
}
