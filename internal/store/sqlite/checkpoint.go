package sqlite

import (
	"context"
)

// checkpointEvery is how many commits pass between checkpoint requests.
// A commit of a typical batch adds a few dozen WAL frames, so the WAL stays
// around SQLite's default autocheckpoint size (1000 pages).
const checkpointEvery = 32

// The writer connection runs with wal_autocheckpoint off: SQLite would
// otherwise checkpoint inside a COMMIT, fsyncs included, stalling every
// caller of that batch. The checkpointer goroutine copies the WAL back into
// the database on its own connection instead; a PASSIVE checkpoint never
// blocks the writer or readers. Closing the last connection still runs a
// final checkpoint.

// afterCommit is called by the writer after each commit.
func (s *Store) afterCommit() {
	s.sinceCheckpoint++
	if s.sinceCheckpoint < checkpointEvery {
		return
	}
	s.sinceCheckpoint = 0
	select {
	case s.ckptKick <- struct{}{}:
	default: // one is already pending
	}
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
