package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/keylock"
)

// Mirror appends transcripts to OpenClaw-format JSONL files under a state
// directory. It is safe for concurrent use: writes to one file are
// serialized, writes to different files run in parallel.
//
// The mirror is a convenience copy; the store is the source of truth, so
// writes are not fsynced unless Sync is set.
type Mirror struct {
	stateDir string
	now      func() time.Time

	// Workspace, when set, gives the "cwd" written in a new file's header
	// for an agent. Otherwise the header names the state directory. Set it
	// before the first Append.
	Workspace func(agentID string) string
	// Sync makes Append fsync the file after each write.
	Sync bool
	// Shared says other processes (gateway replicas) write the same
	// directory: every write then holds the file's flock and skips the
	// messages already written (shared.go). Set it before the first use.
	Shared bool

	locks keylock.Map
	files *fileCache
	tombs tombstones
}

// New returns a Mirror writing under stateDir. now stamps headers and
// messages without a timestamp; nil means time.Now.
func New(stateDir string, now func() time.Time) *Mirror {
	if now == nil {
		now = time.Now
	}
	return &Mirror{stateDir: stateDir, now: now, files: newFileCache(openFileBudget())}
}

// Close closes the files the mirror keeps open for appends. Appends after
// Close still work (they open files again).
func (m *Mirror) Close() error { return m.files.closeAll() }

// Dir returns the directory holding agentID's transcripts.
func (m *Mirror) Dir(agentID string) string {
	return filepath.Join(m.stateDir, "agents", agentID, "sessions")
}

// Path returns the transcript file of a session:
// <state-dir>/agents/<agentId>/sessions/<sessionId>.jsonl.
func (m *Mirror) Path(agentID, sessionID string) string {
	return filepath.Join(m.Dir(agentID), sessionID+".jsonl")
}

// Append writes msgs to the session's transcript, creating the directory
// (0700) and the file (0600) with its header line when missing. The batch
// is one write on an O_APPEND descriptor, so concurrent readers see whole
// batches. Messages without an ID get a random one (chained to the
// previous message of the batch when ParentID is empty too); messages
// without a Timestamp are stamped with now.
func (m *Mirror) Append(agentID, sessionID string, msgs []domain.Message) error {
	if err := checkIDs(agentID, sessionID); err != nil {
		return fmt.Errorf("transcript append: %w", err)
	}
	if len(msgs) == 0 {
		return nil
	}
	path := m.Path(agentID, sessionID)
	unlock := m.locks.Lock(path)
	defer unlock()
	if m.tombs.has(path) {
		// Removed or archived here: a late append must not recreate it.
		return nil
	}
	if m.Shared {
		return m.appendShared(path, agentID, sessionID, msgs)
	}

	// A cached handle has only ever had whole batches written through it,
	// so it needs no header or partial-line check.
	if f := m.files.take(path); f != nil {
		var buf bytes.Buffer
		werr := appendMessages(&buf, msgs, m.now())
		if werr == nil {
			_, werr = f.Write(buf.Bytes())
		}
		if werr == nil && m.Sync {
			werr = f.Sync()
		}
		if werr != nil {
			f.Close()
			return fmt.Errorf("transcript append %s: %w", path, werr)
		}
		m.files.put(path, f)
		return nil
	}
	dir := filepath.Dir(path)
	if !m.files.dirKnown(dir) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("transcript append: %w", err)
		}
		m.files.markDir(dir)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("transcript append: %w", err)
	}
	werr := m.writeBatch(f, agentID, sessionID, msgs)
	if werr == nil && m.Sync {
		werr = f.Sync()
	}
	if werr != nil {
		f.Close()
		return fmt.Errorf("transcript append %s: %w", path, werr)
	}
	m.files.put(path, f)
	return nil
}

// writeBatch encodes the header (for an empty file) and msgs and writes
// them with one call.
func (m *Mirror) writeBatch(f *os.File, agentID, sessionID string, msgs []domain.Message) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	now := m.now()
	switch {
	case fi.Size() == 0:
		h, err := headerLine(sessionID, now, m.cwd(agentID))
		if err != nil {
			return err
		}
		buf.Write(h)
	case !endsWithNewline(f, fi.Size()):
		// A crash mid-write left a partial line; start ours on a fresh
		// line so only the partial one is lost to readers.
		buf.WriteByte('\n')
	}
	if err := appendMessages(&buf, msgs, now); err != nil {
		return err
	}
	_, err = f.Write(buf.Bytes())
	return err
}

func (m *Mirror) cwd(agentID string) string {
	if m.Workspace != nil {
		if w := m.Workspace(agentID); w != "" {
			return w
		}
	}
	return m.stateDir
}

// endsWithNewline reports whether the file's last byte is '\n'. Errors
// count as yes: a failed probe should not inject blank lines.
func endsWithNewline(f *os.File, size int64) bool {
	var b [1]byte
	if _, err := f.ReadAt(b[:], size-1); err != nil && !errors.Is(err, io.EOF) {
		return true
	}
	return b[0] == '\n'
}

// Remove deletes the session's transcript. A missing file is not an error.
// Later Appends and Reconciles for the session are ignored, so an append that
// races the removal cannot create the file again.
func (m *Mirror) Remove(agentID, sessionID string) error {
	if err := checkIDs(agentID, sessionID); err != nil {
		return fmt.Errorf("transcript remove: %w", err)
	}
	path := m.Path(agentID, sessionID)
	unlock := m.locks.Lock(path)
	defer unlock()
	m.tombs.add(path)
	if f := m.files.take(path); f != nil {
		f.Close()
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("transcript remove: %w", err)
	}
	return nil
}

// Archive renames the session's transcript to ArchivePath(agentID,
// sessionID, ts), as OpenClaw does on /reset. A missing file is not an
// error: there is nothing to archive. Later Appends for the old session id
// are ignored, as after Remove.
func (m *Mirror) Archive(agentID, sessionID string, ts time.Time) error {
	if err := checkIDs(agentID, sessionID); err != nil {
		return fmt.Errorf("transcript archive: %w", err)
	}
	path := m.Path(agentID, sessionID)
	unlock := m.locks.Lock(path)
	defer unlock()
	m.tombs.add(path)
	if f := m.files.take(path); f != nil {
		f.Close()
	}
	if err := os.Rename(path, m.ArchivePath(agentID, sessionID, ts)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("transcript archive: %w", err)
	}
	return nil
}

// ArchivePath returns where Archive moves a transcript:
// <sessionId>.jsonl.reset.<ts> beside it.
func (m *Mirror) ArchivePath(agentID, sessionID string, ts time.Time) string {
	return m.Path(agentID, sessionID) + ".reset." + ArchiveStamp(ts)
}

// ArchiveStamp formats ts for archive file names: the ISO timestamp with
// colons replaced by dashes, so names are valid on every file system.
func ArchiveStamp(ts time.Time) string {
	return strings.ReplaceAll(FormatTime(ts), ":", "-")
}

// checkIDs refuses ids that would escape the sessions directory.
func checkIDs(agentID, sessionID string) error {
	if err := checkPathPart("agentId", agentID); err != nil {
		return err
	}
	return checkPathPart("sessionId", sessionID)
}

const maxIDLen = 255

func checkPathPart(field, v string) error {
	switch {
	case v == "":
		return domain.Invalid("%s is empty", field)
	case len(v) > maxIDLen:
		return domain.Invalid("%s is %d bytes, longer than the limit of %d", field, len(v), maxIDLen)
	case v == "." || v == "..":
		return domain.Invalid("%s %q is not a valid file name", field, v)
	case strings.ContainsAny(v, "/\\\x00"):
		return domain.Invalid("%s %q contains a path separator or NUL", field, v)
	}
	return nil
}
