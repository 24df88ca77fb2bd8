package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// ReconcileFull is Reconcile checking the whole file, not only its tail:
// the file must hold exactly msgs' ids, in order, possibly lacking a tail
// (which is appended as Reconcile does). A file whose message lines are
// all the store's but out of order or with one missing in the middle — a
// write that landed after a later one — is rewritten from msgs through a
// temporary file and a rename, keeping its header (SyncRewritten). A file
// holding a message the store does not know is left as it is
// (SyncDiverged), and so is one that needs a rewrite but holds lines that
// are not messages (an imported OpenClaw file with compactions, say),
// which a rewrite from the store would drop. It costs a read of the
// whole file, so callers use it when they know the file may be wrong,
// not on every write.
//
// With Shared set the files belong to several processes, whose appends
// skip what the file holds; ReconcileFull then does what Reconcile does.
func (m *Mirror) ReconcileFull(agentID, sessionID string, msgs []domain.Message) (SyncResult, error) {
	if m.Shared {
		return m.Reconcile(agentID, sessionID, msgs)
	}
	if err := checkIDs(agentID, sessionID); err != nil {
		return SyncUnchanged, fmt.Errorf("transcript reconcile: %w", err)
	}
	path := m.Path(agentID, sessionID)
	unlock := m.locks.Lock(path)
	defer unlock()
	if m.tombs.has(path) {
		return SyncSkipped, nil
	}
	if f := m.files.take(path); f != nil {
		f.Close()
	}
	h, entries, _, err := ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if len(msgs) == 0 {
			return SyncUnchanged, nil
		}
		return SyncCreated, m.create(path, agentID, sessionID, msgs)
	}
	if err != nil {
		return SyncUnchanged, fmt.Errorf("transcript reconcile: %w", err)
	}
	pos := make(map[string]int, len(msgs))
	for i, msg := range msgs {
		pos[msg.ID] = i
	}
	prefix, other, n := true, false, 0
	for _, e := range entries {
		if e.Type != TypeMessage {
			other = true
			continue
		}
		if _, ok := pos[e.ID]; !ok {
			return SyncDiverged, nil
		}
		if n >= len(msgs) || msgs[n].ID != e.ID {
			prefix = false
		}
		n++
	}
	if prefix {
		if n == len(msgs) {
			return SyncUnchanged, nil
		}
		return m.appendTail(path, agentID, sessionID, msgs[n:])
	}
	if other {
		// A rewrite would drop the lines that are not messages.
		return SyncDiverged, nil
	}
	// Every message line is the store's (torn lines are skipped by the
	// reader and are what a crash mid-write leaves): the store's order is
	// the truth.
	return SyncRewritten, m.rewrite(path, h, msgs)
}

// rewrite replaces path with header h and msgs, atomically.
func (m *Mirror) rewrite(path string, h Header, msgs []domain.Message) error {
	hl, err := encodeLine(h)
	if err != nil {
		return err
	}
	buf := bytes.NewBuffer(hl)
	if err := appendMessages(buf, msgs, m.now()); err != nil {
		return err
	}
	return replaceFile(path, buf.Bytes(), m.Sync)
}
