package sqlite

// A bulk writer lets the search index lag further.
//
// The writer catches the index up once indexLagMax messages wait, so a
// search never has more than a few milliseconds of indexing to do first.
// For an import that means a catch-up transaction, and an FTS5 segment,
// per few thousand messages, and FTS5 merging those segments again (a
// crisis merge whenever 16 pile up on a level). Messages appended through
// AppendPrepared (the OpenClaw import's path) come in Updates of
// thousands, so while the latest appends are such messages the writer
// waits for bulkIndexLagMax messages instead: fewer, larger segments cost
// less CPU per imported message. A search during an import indexes up to
// that many first; the
// importer indexes what is left when it ends (IndexPending); the writer's
// memory of index texts is bounded by the same number.
//
// The latest batch that appended anything decides: one plain append (a
// chat turn's) brings the bound back to indexLagMax, and the next
// catch-up indexes the whole tail. Batches that append nothing leave it.
//
// Larger lags were tried and cost more CPU per message (BenchmarkImport).
const bulkIndexLagMax = 8192

// noteLag records the lag the appends of t, a fn that succeeded, allow
// for its batch: the smallest of its fns'.
func (s *Store) noteLag(t *tx) {
	if len(t.index) == 0 {
		return
	}
	lag := indexLagMax
	if t.bulk {
		lag = bulkIndexLagMax
	}
	if s.pendingLag == 0 || lag < s.pendingLag {
		s.pendingLag = lag
	}
}

// indexLag is how many messages may wait for the index now.
func (s *Store) indexLag() int {
	if s.lag == 0 {
		return indexLagMax
	}
	return s.lag
}
