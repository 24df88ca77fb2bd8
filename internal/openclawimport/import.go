package openclawimport

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"

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
	src, err := loadIndexes(ctx, dir, opts, &sum)
	if err != nil {
		return sum, err
	}
	defer src.close()
	src.startChecks(ctx, opts.holdChecks)
	cands := src.cands
	rows, err := st.ListSessions(ctx, domain.SessionQuery{IncludeArchived: true})
	if err != nil {
		return sum, fmt.Errorf("openclawimport: list existing sessions: %w", err)
	}
	existing := make(map[string]domain.Session, len(rows))
	for _, r := range rows {
		existing[r.Key] = r
	}
	im := &importer{st: st, opts: opts, existing: existing, sum: &sum, ready: src.wait, checking: src.checked}
	im.prep, _ = st.(domain.MessagePreparer)
	if opts.Mirror != nil {
		im.mirror = startMirror(opts.Mirror)
	}
	err = im.run(ctx, cands)
	if err == nil {
		// Nothing was written (every session unchanged) or the writes
		// waited for it; either way a corrupt file fails the import.
		err = src.wait(ctx)
	}
	if ix, ok := st.(domain.SearchIndexer); ok && err == nil {
		// The store indexes appends in large catch-ups behind the writes;
		// the last one runs here, so every imported message is searchable
		// when Import returns. Its failure loses nothing: the sessions are
		// committed, and the next search runs the same catch-up first.
		if ierr := ix.IndexPending(ctx); ierr != nil {
			sum.warn(fmt.Sprintf("search index: %v; the first search will index the imported messages", ierr))
		}
	}
	if im.mirror != nil {
		// Whatever was committed is mirrored, even when the import stops.
		for _, w := range im.mirror.finish() {
			sum.warn(w)
		}
	}
	return sum, err
}

type importer struct {
	st       domain.Store
	opts     Options
	existing map[string]domain.Session // read-only once run starts
	sum      *Summary
	mirror   *mirrorWriter          // nil without Options.Mirror
	prep     domain.MessagePreparer // nil when st has none
	// ready returns once the source may be trusted (its files passed
	// their integrity checks), or why it may not: nothing is committed
	// before it returned nil (stage.go).
	ready func(context.Context) error
	// checking is closed once the source's checks are over; nil when
	// there are none.
	checking <-chan struct{}
	// budget bounds the planned messages; commit starts it once ready
	// returned nil. Set by run.
	budget *planBudget
}

// plan is what to do with one candidate, decided off the writer path.
type plan struct {
	c     *candidate
	index int             // of c among the candidates
	row   *domain.Session // nil: leave the row as it is
	msgs  []domain.Message
	// prepared is msgs made ready by the store (domain.MessagePreparer),
	// nil when the store has no such step or refused them.
	prepared domain.PreparedMessages
	skip     string // non-empty: write nothing, count this reason
	warnings []string
	// transcriptWarnings are reported only when the session is written.
	transcriptWarnings []string
	counted            []string // reasons counted although the session is written
	lines              transcript.Stats
	branchLen          int   // length of the transcript's active branch
	err                error // fatal: the store could not be read
}

// run plans candidates on planWorkers workers and writes them, in order, as
// soon as they are planned: the writer does not wait for a whole batch to
// be planned before it starts, so parsing and writing overlap from the
// first session to the last. Workers stay at most window candidates ahead
// of the writer, and hold at most planBudgetMessages messages it has not
// taken yet (planHeadStartMessages until the writes may begin), which bounds the transcripts (and plans) held in memory:
// a plan lives from its worker to the commit of its group, never for the
// whole run, so an import of a million sessions holds a few hundred.
func (im *importer) run(ctx context.Context, cands []candidate) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	window := 2 * im.opts.BatchSize
	var (
		slots = make(chan struct{}, window) // one per candidate being planned or not yet written
		done  = make(chan *plan, window)    // finished plans; never full
		msgs  = newPlanBudget(im.opts.planBudget, im.opts.planHeadStart)
		next  atomic.Int64
		wg    sync.WaitGroup
	)
	for range min(planWorkers(runtime.GOMAXPROCS(0)), len(cands)) {
		wg.Go(func() {
			tr := newTranscriptReader()
			defer tr.close()
			for {
				if msgs.wait(ctx) != nil {
					return
				}
				// Take a slot before an index, so the lowest unfinished
				// index always has a slot and the writer never waits
				// for a candidate that cannot start.
				select {
				case slots <- struct{}{}:
				case <-ctx.Done():
					return
				}
				i := int(next.Add(1) - 1)
				if i >= len(cands) {
					<-slots
					return
				}
				p := im.plan(ctx, &cands[i], tr)
				p.index = i
				msgs.add(len(p.msgs))
				done <- &p
			}
		})
	}
	im.budget = msgs
	err := im.writeAll(ctx, len(cands), window, done, slots, msgs)
	cancel()
	wg.Wait()
	return err
}

// writeAll writes the total plans in order as done delivers them,
// freeing a slot for each plan it is through with. A plan that arrives
// early waits in pending, at its index modulo window: every index from
// the next one to write up to any delivered one holds a slot, so two
// waiting plans never share a place.
func (im *importer) writeAll(ctx context.Context, total, window int, done <-chan *plan, slots <-chan struct{}, msgs *planBudget) error {
	pending := make([]*plan, window)
	w := groupWriter{im: im}
	// A stage still open here means the import stops: nothing of it is
	// committed.
	defer w.abort()
	release := func(n int) {
		for range n {
			<-slots
		}
	}
	for pos := 0; pos < total; {
		p := pending[pos%window]
		if p == nil {
			select {
			case q := <-done:
				k := q.index % window
				if pending[k] != nil {
					return fmt.Errorf("openclawimport: internal error: plans %d and %d share place %d", pending[k].index, q.index, k)
				}
				pending[k] = q
			case <-ctx.Done():
				return ctx.Err()
			}
			continue
		}
		pending[pos%window] = nil
		pos++
		msgs.release(len(p.msgs))
		held, err := w.add(ctx, p)
		if err != nil {
			return err
		}
		release(held)
		// Every BatchSize candidates (and at the end) the writes are
		// committed (or staged, stage.go) and progress reported, as a
		// batch of the import.
		if pos%im.opts.BatchSize == 0 || pos == total {
			n, err := w.flush(ctx)
			if err != nil {
				return err
			}
			release(n)
			if im.opts.Progress != nil {
				im.opts.Progress(pos, total)
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	// The last groups may be staged: they commit once the checks passed.
	return w.endStage(ctx)
}

// plan reads c's transcript (through tr) and decides what to write.
func (im *importer) plan(ctx context.Context, c *candidate, tr *transcriptReader) plan {
	p := plan{c: c}
	if err := ctx.Err(); err != nil {
		p.err = err
		return p
	}
	msgs := im.readTranscript(ctx, c, &p, tr)
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
	if im.prep != nil && len(p.msgs) > 0 {
		// The body and index text of each message are made here, on a
		// planning worker, not on the store's writer. Messages the store
		// refuses are left unprepared: AppendMessages refuses them the
		// same way, and the session is skipped with that error.
		if pm, err := im.prep.PrepareMessages(p.msgs); err == nil {
			p.prepared = pm
		}
	}
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
func (im *importer) readTranscript(ctx context.Context, c *candidate, p *plan, tr *transcriptReader) []domain.Message {
	var lastErr error
	paths := transcriptPaths(c)
	if c.db != nil {
		paths = []string{fmt.Sprintf("%s (events of session %s)", c.db.path, c.e.SessionID)}
	}
	for _, path := range paths {
		var (
			h       transcript.Header
			entries []transcript.Entry
			stats   transcript.Stats
			err     error
		)
		if c.db != nil {
			h, entries, stats, err = tr.readEvents(ctx, c.db, c.e.SessionID)
		} else {
			h, entries, stats, err = tr.read(path)
		}
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
		// The store assigns Seq, ID and ParentID; OpenClaw's entry ids are
		// not kept.
		msgs := transcript.Messages(tr.sc.ActiveBranch(entries))
		for i := range msgs {
			msgs[i].Seq, msgs[i].SessionID = 0, c.e.SessionID
		}
		return msgs
	}
	if lastErr != nil {
		p.counted = append(p.counted, reasonBadTranscript)
		p.transcriptWarnings = append(p.transcriptWarnings, fmt.Sprintf("session %s: %v; imported without messages", c.key, lastErr))
		return nil
	}
	p.counted = append(p.counted, reasonNoTranscript)
	p.transcriptWarnings = append(p.transcriptWarnings, fmt.Sprintf("session %s: no transcript %s; imported without messages", c.key, paths[0]))
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
