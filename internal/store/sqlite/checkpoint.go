package sqlite

import (
	"context"
	"fmt"
	"time"

	"modernc.org/sqlite"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// The writer connection runs with wal_autocheckpoint off: SQLite would
// otherwise checkpoint inside a COMMIT, fsyncs included, stalling every
// caller of that batch. Checkpoints happen in three places instead:
//
//   - The checkpointer goroutine copies the WAL back into the database on
//     its own connection, kicked every checkpointEvery commits or
//     checkpointFrames WAL frames. PASSIVE never blocks the writer or
//     readers, so this is where the copying is done.
//   - A WAL only shrinks when it is restarted: when a write transaction
//     begins while every frame has been copied and no reader still uses
//     one. Under sustained writes that moment never comes by itself (the
//     writer commits new frames while the checkpointer copies), and the WAL
//     grows without bound; an import of 100,000 sessions left 1.7 GB of it.
//     So once the frames written since the last restart pass
//     walRestartFrames, the writer itself runs a PASSIVE checkpoint between
//     two batches. It only copies what the checkpointer has not yet, and
//     when it completes, the writer's next transaction restarts the WAL,
//     which journal_size_limit then truncates to walSizeLimit.
//   - When the writer has been idle for walIdleDelay after writing, it runs
//     a TRUNCATE checkpoint, which leaves a zero-length WAL. It waits for
//     readers at most walIdleBusy, and tries again after the next idle
//     period if they were in the way.
//
// Closing the last connection runs a final checkpoint too.

const (
	// checkpointEvery and checkpointFrames say when the checkpointer is
	// kicked: after this many commits or WAL frames (pages), whichever
	// comes first. 1000 frames is SQLite's own autocheckpoint default.
	checkpointEvery  = 32
	checkpointFrames = 1000
	// walSizeLimit is journal_size_limit: the size a restarted WAL is
	// truncated to.
	walSizeLimit = 64 << 20
	// walRestartFrames is how many frames (4 KiB pages) the WAL may hold
	// before the writer makes it restart.
	walRestartFrames = walSizeLimit / 4096
	// walIdleDelay and walIdleBusy govern the TRUNCATE checkpoint of an
	// idle writer.
	walIdleDelay = time.Second
	walIdleBusy  = 50 * time.Millisecond
)

// walState is the writer's view of the WAL; only the writer goroutine
// uses it.
type walState struct {
	sinceKick       int // commits since the checkpointer was last kicked
	framesSinceKick int
	// frames counts frames written since the WAL last restarted, as far
	// as the writer knows (an upper bound: a page written twice in one
	// transaction may reuse its frame).
	frames int
	// dirty: something was written since the last TRUNCATE checkpoint.
	dirty bool
}

// afterCommit is called by the writer after each commit.
func (s *Store) afterCommit(ctx context.Context) {
	n := s.pagesWritten()
	w := &s.wal
	w.sinceKick++
	w.framesSinceKick += n
	w.frames += n
	w.dirty = true
	if w.sinceKick >= checkpointEvery || w.framesSinceKick >= checkpointFrames {
		w.sinceKick, w.framesSinceKick = 0, 0
		select {
		case s.ckptKick <- struct{}{}:
		default: // one is already pending
		}
	}
	if w.frames >= s.walRestart {
		busy, log, done, err := s.checkpointW(ctx, "PASSIVE")
		s.writerCheckpoints.Add(1)
		switch {
		case err == nil && busy == 0 && done == log:
			// The next BEGIN restarts the WAL (unless a reader holds on
			// to a snapshot at that instant; then a later try does it).
			w.frames = 0
		default:
			// A reader or the checkpointer was in the way; try again
			// after another checkpointFrames frames.
			w.frames = max(0, s.walRestart-checkpointFrames)
		}
	}
}

// idleCheckpoint runs the TRUNCATE checkpoint of an idle writer. It
// reports whether the WAL is now empty.
func (s *Store) idleCheckpoint(ctx context.Context) bool {
	if err := s.execW(ctx, fmt.Sprintf("PRAGMA busy_timeout = %d", walIdleBusy.Milliseconds())); err != nil {
		return false
	}
	busy, _, _, err := s.checkpointW(ctx, "TRUNCATE")
	s.writerCheckpoints.Add(1)
	// Restore the connection's busy timeout; if that fails the next
	// statement may give up early, which is an error its caller sees.
	_ = s.execW(ctx, fmt.Sprintf("PRAGMA busy_timeout = %d", s.busyTimeout.Milliseconds()))
	if err != nil || busy != 0 {
		return false
	}
	s.wal = walState{}
	// An idle writer gives back its page cache; the next batch reads the
	// pages it needs again (from the OS's cache, typically).
	_ = s.execW(ctx, "PRAGMA shrink_memory")
	return true
}

// checkpointW runs a checkpoint on the write connection, outside any
// transaction. It returns PRAGMA wal_checkpoint's row: busy (1 when it
// could not finish), the WAL's frames, and the frames copied.
func (s *Store) checkpointW(ctx context.Context, mode string) (busy, log, done int, err error) {
	st, err := s.stmt(ctx, "PRAGMA wal_checkpoint("+mode+")")
	if err != nil {
		return 0, 0, 0, err
	}
	err = st.QueryRowContext(ctx).Scan(&busy, &log, &done)
	return busy, log, done, err
}

// pagesWritten returns how many pages the write connection has written
// (to the WAL) since the last call.
func (s *Store) pagesWritten() int {
	var n int
	_ = s.wconn.Raw(func(dc any) error {
		st, ok := dc.(sqlite.DBStatus)
		if !ok {
			return nil
		}
		cur, _, err := st.Status(sqlite.DBStatusCacheWrite, true)
		n = cur
		return err
	})
	return n
}

// runCheckpointer is the checkpointer goroutine; Close stops it through ctx.
func (s *Store) runCheckpointer(ctx context.Context) {
	defer s.ckptWG.Done()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.ckptKick:
		}
		// PASSIVE copies what it can without waiting for anyone. A failure
		// (ctx cancelled at Close, I/O) leaves the WAL to the next attempt
		// or to the final checkpoint at close.
		var busy, logFrames, done int
		err := s.cdb.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &logFrames, &done)
		if err == nil {
			s.checkpoints.Add(1)
		}
	}
}

// ReleaseMemory gives back the write connection's page cache, as the
// writer does by itself after walIdleDelay without writes. A benchmark
// calls it to measure what follows without the memory a bulk import left
// cached.
func (s *Store) ReleaseMemory(ctx context.Context) error {
	return s.Update(ctx, func(dt domain.Tx) error {
		t := dt.(*tx)
		return t.s.execW(t.ctx, "PRAGMA shrink_memory")
	})
}

// CheckpointTruncate copies the whole WAL into the database and empties
// it, as the writer does by itself after walIdleDelay without writes. A
// benchmark calls it to measure the store's size at rest rather than
// with a WAL of up to walSizeLimit left by its last writes.
func (s *Store) CheckpointTruncate(ctx context.Context) error {
	var busy, logFrames, done int
	if err := s.cdb.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logFrames, &done); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if busy != 0 {
		return fmt.Errorf("checkpoint: the WAL is in use (%d of %d frames copied)", done, logFrames)
	}
	return nil
}
