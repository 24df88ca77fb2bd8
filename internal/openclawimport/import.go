package openclawimport

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/transcript"
)

// Import copies the OpenClaw state directory dir into st.
//
// Every sessions.json is read first, so a garbled one fails the import
// with an error naming the file and the position before anything is
// written. Sessions are then written in batches, each session's row and
// messages in the same Update, so a session is never half imported.
// Transcripts contribute their active branch; bad lines are skipped and
// counted, and a missing transcript yields a session without messages.
//
// Running Import again changes nothing: a session whose row has the same
// sessionId and as many stored messages as its transcript's active branch
// is skipped, and a transcript that grew only has its new tail appended.
func Import(ctx context.Context, st domain.Store, dir string, opts Options) (Summary, error) {
	sum := newSummary()
	opts, err := opts.withDefaults()
	if err != nil {
		return sum, err
	}
	cands, err := loadIndexes(dir, opts, &sum)
	if err != nil {
		return sum, err
	}
	rows, err := st.ListSessions(ctx, domain.SessionQuery{IncludeArchived: true})
	if err != nil {
		return sum, fmt.Errorf("openclawimport: list existing sessions: %w", err)
	}
	existing := make(map[string]domain.Session, len(rows))
	for _, r := range rows {
		existing[r.Key] = r
	}
	im := &importer{st: st, opts: opts, existing: existing, sum: &sum}
	if err := im.run(ctx, cands); err != nil {
		return sum, err
	}
	return sum, nil
}

type importer struct {
	st       domain.Store
	opts     Options
	existing map[string]domain.Session // read-only once run starts
	sum      *Summary
}

// plan is what to do with one candidate, decided off the writer path.
type plan struct {
	c        *candidate
	row      *domain.Session // nil: leave the row as it is
	msgs     []domain.Message
	skip     string // non-empty: write nothing, count this reason
	warnings []string
	// transcriptWarnings are reported only when the session is written.
	transcriptWarnings []string
	counted            []string // reasons counted although the session is written
	lines              transcript.Stats
	branchLen          int   // length of the transcript's active branch
	err                error // fatal: the store could not be read
}

// run plans chunks of candidates in parallel and writes each chunk while
// the next one is being planned.
func (im *importer) run(ctx context.Context, cands []candidate) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	chunks := make(chan []plan, 1)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(chunks)
		for start := 0; start < len(cands); start += im.opts.BatchSize {
			chunk := cands[start:min(start+im.opts.BatchSize, len(cands))]
			plans := im.planChunk(ctx, chunk)
			select {
			case chunks <- plans:
			case <-ctx.Done():
				return
			}
		}
	}()
	err := im.writeAll(ctx, chunks, len(cands))
	cancel()
	wg.Wait()
	return err
}

func (im *importer) writeAll(ctx context.Context, chunks <-chan []plan, total int) error {
	done := 0
	for plans := range chunks {
		if err := im.write(ctx, plans); err != nil {
			return err
		}
		done += len(plans)
		if im.opts.Progress != nil {
			im.opts.Progress(done, total)
		}
	}
	return ctx.Err()
}

// planChunk plans every candidate of chunk, in parallel, keeping order.
func (im *importer) planChunk(ctx context.Context, chunk []candidate) []plan {
	plans := make([]plan, len(chunk))
	workers := min(runtime.GOMAXPROCS(0), len(chunk))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				plans[i] = im.plan(ctx, &chunk[i])
			}
		}()
	}
	for i := range chunk {
		next <- i
	}
	close(next)
	wg.Wait()
	return plans
}

// plan reads c's transcript and decides what to write.
func (im *importer) plan(ctx context.Context, c *candidate) plan {
	p := plan{c: c}
	if err := ctx.Err(); err != nil {
		p.err = err
		return p
	}
	msgs := im.readTranscript(c, &p)
	p.branchLen = len(msgs)
	now := im.opts.Now().UnixMilli()
	kind := im.opts.Kind(c.key)
	ex, exists := im.existing[c.key]
	// replace: the row holds another generation of the session.
	replace := exists && ex.SessionID != c.e.SessionID
	if replace && int64(c.e.UpdatedAt) <= ex.UpdatedAt {
		p.skip = reasonSessionIDDiffer
		p.warnings = append(p.warnings, fmt.Sprintf("session %s: the store's sessionId %s is newer than OpenClaw's %s; left as is", c.key, ex.SessionID, c.e.SessionID))
		return p
	}
	n := 0
	if exists {
		var err error
		if n, err = im.storedCount(ctx, c.key, c.e.SessionID, len(msgs)); err != nil {
			p.err = err
			return p
		}
	}
	switch {
	case n > len(msgs):
		p.skip = reasonStoreAhead
		p.warnings = append(p.warnings, fmt.Sprintf("session %s: the store has more messages than the transcript (%d > %d); left as is", c.key, n, len(msgs)))
		return p
	case exists && !replace && n == len(msgs):
		p.skip = reasonUnchanged
		return p
	}
	p.msgs = msgs[n:]
	switch {
	case !exists:
		row := c.e.session(domain.Session{}, c.key, c.agentID, kind, c.spawnedBy, now)
		row.CreatedAt = row.UpdatedAt
		if len(msgs) > 0 && msgs[0].Timestamp > 0 {
			row.CreatedAt = min(row.CreatedAt, msgs[0].Timestamp)
		}
		p.row = &row
	case replace || int64(c.e.UpdatedAt) > ex.UpdatedAt:
		// OpenClaw reset the session after an earlier import (its newer
		// generation replaces the row) or went on with it.
		row := c.e.session(ex, c.key, c.agentID, kind, c.spawnedBy, now)
		p.row = &row
	}
	return p
}

// storedCount returns how many messages the store holds for (key,
// sessionID), reading at most want+1 of them: all Import needs to know is
// whether that is fewer than, as many as or more than want.
func (im *importer) storedCount(ctx context.Context, key, sessionID string, want int) (int, error) {
	msgs, err := im.st.ReadMessages(ctx, key, domain.MessageQuery{SessionID: sessionID, Limit: want + 1})
	if err != nil {
		return 0, fmt.Errorf("openclawimport: read messages of %s: %w", key, err)
	}
	return len(msgs), nil
}

// readTranscript returns the messages of c's active branch and records
// problems on p.
func (im *importer) readTranscript(c *candidate, p *plan) []domain.Message {
	var lastErr error
	for _, path := range transcriptPaths(c) {
		h, entries, stats, err := transcript.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			lastErr = err
			break
		}
		p.lines = stats
		for _, s := range stats.Skips {
			p.transcriptWarnings = append(p.transcriptWarnings, fmt.Sprintf("%s: %s", path, s))
		}
		if h.ID != "" && h.ID != c.e.SessionID {
			p.transcriptWarnings = append(p.transcriptWarnings, fmt.Sprintf("%s: header id %s differs from sessionId %s", path, h.ID, c.e.SessionID))
		}
		msgs := transcript.Messages(transcript.ActiveBranch(entries))
		for i := range msgs {
			msgs[i].Seq, msgs[i].SessionID = 0, c.e.SessionID
		}
		return dedupeIDs(msgs)
	}
	if lastErr != nil {
		p.counted = append(p.counted, reasonBadTranscript)
		p.transcriptWarnings = append(p.transcriptWarnings, fmt.Sprintf("session %s: %v; imported without messages", c.key, lastErr))
		return nil
	}
	p.counted = append(p.counted, reasonNoTranscript)
	p.transcriptWarnings = append(p.transcriptWarnings, fmt.Sprintf("session %s: no transcript %s; imported without messages", c.key, transcriptPaths(c)[0]))
	return nil
}

// transcriptPaths lists where c's transcript may be, best first:
// sessionFile (relative to the sessions dir), the file of that name in the
// sessions dir (for a state dir copied from elsewhere), <sessionId>.jsonl.
func transcriptPaths(c *candidate) []string {
	def := filepath.Join(c.sessionsDir, c.e.SessionID+".jsonl")
	sf := c.e.SessionFile
	if sf == "" {
		return []string{def}
	}
	if !filepath.IsAbs(sf) {
		sf = filepath.Join(c.sessionsDir, sf)
	}
	out := []string{sf}
	if base := filepath.Join(c.sessionsDir, filepath.Base(sf)); base != sf {
		out = append(out, base)
	}
	if def != sf {
		out = append(out, def)
	}
	return out
}

// dedupeIDs clears repeated entry ids (a hand-edited file, say) so the
// store assigns fresh ones instead of refusing the batch.
func dedupeIDs(msgs []domain.Message) []domain.Message {
	seen := make(map[string]struct{}, len(msgs))
	for i := range msgs {
		if msgs[i].ID == "" {
			continue
		}
		if _, dup := seen[msgs[i].ID]; dup {
			msgs[i].ID = ""
			continue
		}
		seen[msgs[i].ID] = struct{}{}
	}
	return msgs
}
