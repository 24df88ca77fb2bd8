package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// SyncResult says what Reconcile did to a transcript file.
type SyncResult int

// Reconcile results.
const (
	// SyncUnchanged: the file already held every message.
	SyncUnchanged SyncResult = iota
	// SyncCreated: the file was missing and was written whole.
	SyncCreated
	// SyncAppended: the file lacked its tail; the missing messages were
	// appended.
	SyncAppended
	// SyncDiverged: the file's last message is not one of the store's
	// (an imported or hand-edited file); it is left as it is.
	SyncDiverged
	// SyncSkipped: the session was removed or archived by this mirror,
	// so no file is written for it.
	SyncSkipped
	// SyncRewritten: the file held only the store's messages but not in
	// its order (one missing in the middle, or a late write after a later
	// one); it was rewritten from the store (ReconcileFull).
	SyncRewritten
)

// Repaired reports whether Reconcile changed the file.
func (r SyncResult) Repaired() bool {
	return r == SyncCreated || r == SyncAppended || r == SyncRewritten
}

// Reconcile brings the session's transcript file up to date with msgs,
// the store's messages of that session id, oldest first: a missing file
// is created (header and every message, written to a temporary file and
// renamed), and a file whose last message is one of msgs gets the ones
// after it appended. The store is the truth; the file follows it. A file
// whose last message the store does not know is left alone (SyncDiverged):
// it may hold entries the store never had (an imported OpenClaw file).
func (m *Mirror) Reconcile(agentID, sessionID string, msgs []domain.Message) (SyncResult, error) {
	if err := checkIDs(agentID, sessionID); err != nil {
		return SyncUnchanged, fmt.Errorf("transcript reconcile: %w", err)
	}
	path := m.Path(agentID, sessionID)
	unlock := m.locks.Lock(path)
	defer unlock()
	if m.tombs.has(path) {
		return SyncSkipped, nil
	}
	if m.Shared {
		return m.reconcileShared(path, agentID, sessionID, msgs)
	}
	// Appends go through fresh descriptors after a reconcile.
	if f := m.files.take(path); f != nil {
		f.Close()
	}
	last, exists, err := lastMessageID(path)
	switch {
	case err != nil:
		return SyncUnchanged, fmt.Errorf("transcript reconcile: %w", err)
	case !exists:
		if len(msgs) == 0 {
			return SyncUnchanged, nil
		}
		return SyncCreated, m.create(path, agentID, sessionID, msgs)
	case last == "":
		// The tail holds no whole message line: read the whole file.
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
	from := 0
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
	if from == len(msgs) {
		return SyncUnchanged, nil
	}
	return m.appendTail(path, agentID, sessionID, msgs[from:])
}

// appendTail appends msgs, the messages the file at path lacks at its
// end (SyncAppended).
func (m *Mirror) appendTail(path, agentID, sessionID string, msgs []domain.Message) (SyncResult, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		return SyncUnchanged, fmt.Errorf("transcript reconcile: %w", err)
	}
	defer f.Close()
	if err := m.writeBatch(f, agentID, sessionID, msgs); err != nil {
		return SyncUnchanged, fmt.Errorf("transcript reconcile %s: %w", path, err)
	}
	if m.Sync {
		if err := f.Sync(); err != nil {
			return SyncUnchanged, fmt.Errorf("transcript reconcile %s: %w", path, err)
		}
	}
	return SyncAppended, nil
}

// tailBytes is how much of a file's end LastMessageID reads.
const tailBytes = 64 << 10

// LastMessageID returns the id of the last complete message line of the
// session's transcript, reading only the file's tail. exists is false when
// there is no file; id is "" when the tail holds no complete message line
// (Reconcile then decides with the whole file).
func (m *Mirror) LastMessageID(agentID, sessionID string) (id string, exists bool, err error) {
	if err := checkIDs(agentID, sessionID); err != nil {
		return "", false, fmt.Errorf("transcript tail: %w", err)
	}
	return lastMessageID(m.Path(agentID, sessionID))
}

func lastMessageID(path string) (id string, exists bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("transcript tail: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", true, fmt.Errorf("transcript tail: %w", err)
	}
	off := max(fi.Size()-tailBytes, 0)
	buf := make([]byte, fi.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil {
		return "", true, fmt.Errorf("transcript tail: %w", err)
	}
	if off == 0 && bytes.IndexByte(buf, '\n') < 0 {
		// Empty, or one torn line: a stop between the file's creation and
		// its first write (SIGKILL). It holds no line to keep, and taken as
		// existing it would be unreadable (no header) until an append wrote
		// a header and its own messages into it, without the earlier ones.
		// As missing, Reconcile writes it whole.
		return "", false, nil
	}
	lines := bytes.Split(buf, []byte{'\n'})
	// The last element follows the last newline: empty, or a torn line.
	for i := len(lines) - 2; i >= 0; i-- {
		if off > 0 && i == 0 {
			break // may start mid-line
		}
		e, reason, _ := parseEntry(lines[i], 0)
		if reason == "" && e.Type == TypeMessage {
			return e.ID, true, nil
		}
	}
	return "", true, nil
}

// create writes path with the header and msgs through a temporary file
// and a rename, so a reader never sees half of it.
func (m *Mirror) create(path, agentID, sessionID string, msgs []domain.Message) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("transcript reconcile: %w", err)
	}
	m.files.markDir(dir)
	now := m.now()
	h, err := headerLine(sessionID, now, m.cwd(agentID))
	if err != nil {
		return err
	}
	buf := bytes.NewBuffer(h)
	if err := appendMessages(buf, msgs, now); err != nil {
		return err
	}
	return replaceFile(path, buf.Bytes(), false)
}

// replaceFile makes data the content of path (mode 0600) through a
// temporary file beside it and a rename, so a reader never sees half of
// it; with sync the temporary file is synced before the rename.
func replaceFile(path string, data []byte, sync bool) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".sync-*")
	if err != nil {
		return fmt.Errorf("transcript reconcile: %w", err)
	}
	defer os.Remove(tmp.Name()) // a no-op after the rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("transcript reconcile %s: %w", path, err)
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("transcript reconcile %s: %w", path, err)
	}
	if sync {
		if err := tmp.Sync(); err != nil {
			tmp.Close()
			return fmt.Errorf("transcript reconcile %s: %w", path, err)
		}
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("transcript reconcile %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("transcript reconcile %s: %w", path, err)
	}
	return nil
}
