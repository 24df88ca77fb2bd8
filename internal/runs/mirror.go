package runs

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/keylock"
	"github.com/switchboard-go/switchboard/internal/transcript"
)

// mirrorWriter appends finished runs' messages to the JSONL mirror from
// one background goroutine, so file I/O stays off the run's path. Jobs are
// written in order; when the queue is full the caller writes itself (no
// message is dropped). Close drains the queue.
//
// A session whose append failed (a full disk, say) is remembered and
// reconciled with the store later (after the next job that succeeds, at
// most every retryDirty, and at close), so the mirror catches up by itself
// once the file system accepts writes again. Until then its appends are
// reconciles too (up to the job's last message), which skip what the file
// already holds. Every reconcile is bounded to its run's messages, so it
// never writes a later run's messages whose append is still queued.
type mirrorWriter struct {
	m       Mirror
	store   domain.StoreReader
	log     *slog.Logger
	jobs    chan mirrorJob
	wg      sync.WaitGroup
	mu      sync.Mutex
	started bool
	done    bool

	dirtyMu sync.Mutex
	// dirty maps the sessions whose file may lack messages to the highest
	// Seq a full reconcile has written since (0: none yet).
	dirty map[mirrorSession]int64
	// written maps a session to the highest Seq this writer has put in
	// its file. A job whose messages are not all above it arrived late
	// (its commit came before a later one's, but its job after): the file
	// then lacks a message in the middle or holds one out of order.
	written map[mirrorSession]int64
	// unordered holds the sessions whose file may be wrong in the middle,
	// not only lack a tail: their next reconcile checks the whole file.
	unordered map[mirrorSession]bool
	lastRetry time.Time
	// order serializes, per session key, a transcript commit with the
	// queueing of its mirror job, so jobs are queued in the store's order
	// (orderLock).
	order keylock.Map
}

// orderLock locks session key until the returned func is called. A
// transcript write outside a run's lane (Inject) and a run's final commit
// (finish, a quick turn's fold) each hold it from before their transaction until
// their mirror job is queued (or the session marked behind): without it,
// a run could commit later messages and have them written between an
// Inject's commit and its lane check, leaving the injected message out of
// the file's middle (the file's tail still matches the store, so no
// reconcile would ever add it). Nil-safe: no mirror, no lock.
func (w *mirrorWriter) orderLock(key string) func() {
	if w == nil {
		return func() {}
	}
	return w.order.Lock(key)
}

// FullReconciler is a Reconciler that can also check a whole file and
// rewrite it in the store's order (transcript.Mirror.ReconcileFull).
type FullReconciler interface {
	ReconcileFull(agentID, sessionID string, msgs []domain.Message) (transcript.SyncResult, error)
}

// retryDirty spaces the reconciles of sessions whose append failed.
const retryDirty = 2 * time.Second

type mirrorSession struct{ agentID, key, sessionID string }

type mirrorJob struct {
	s    mirrorSession
	msgs []domain.Message
	// reconcile brings the file up to the store instead of appending msgs.
	reconcile bool
	// upTo bounds a reconcile to the messages with Seq <= upTo (0: all).
	upTo int64
}

// newMirrorWriter builds the mirror writer; its goroutine starts with
// Start.
func newMirrorWriter(m Mirror, store domain.StoreReader, log *slog.Logger) *mirrorWriter {
	return &mirrorWriter{m: m, store: store, log: log, jobs: make(chan mirrorJob, 4096), dirty: map[mirrorSession]int64{},
		written: map[mirrorSession]int64{}, unordered: map[mirrorSession]bool{}}
}

// Start starts the goroutine that writes the queued jobs, once.
func (w *mirrorWriter) Start() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.started || w.done {
		return
	}
	w.started = true
	w.wg.Add(1)
	go w.loop()
}

func (w *mirrorWriter) loop() {
	defer w.wg.Done()
	for j := range w.jobs {
		w.write(j)
	}
}

func (w *mirrorWriter) write(j mirrorJob) {
	var err error
	w.dirtyMu.Lock()
	hw, dirty := w.dirty[j.s]
	if top := w.written[j.s]; top > 0 && !j.reconcile && len(j.msgs) > 0 && firstSeq(j.msgs) <= top {
		// Late: a later commit's messages are in the file already. Writing
		// these after them would put them out of order.
		w.unordered[j.s] = true
	}
	if w.unordered[j.s] {
		// The whole-file check must cover what the file holds already.
		j.reconcile = true
		if j.upTo > 0 {
			j.upTo = max(j.upTo, w.written[j.s])
		}
	}
	w.dirtyMu.Unlock()
	if dirty {
		// Until it has caught up, a session's appends are reconciles
		// (bounded to the job's messages), which skip what the file holds.
		j.reconcile = true
	}
	if j.reconcile {
		_, err = w.reconcileNow(j.s, j.upTo)
	} else {
		err = w.m.Append(j.s.agentID, j.s.sessionID, j.msgs)
		if errors.Is(err, transcript.ErrNoFile) {
			// The file went away while the gateway ran: the store, which
			// holds everything up to these messages, rebuilds it.
			_, err = w.reconcileNow(j.s, lastSeq(j.msgs))
		} else if err == nil {
			w.wrote(j.s, lastSeq(j.msgs))
			w.dirtyMu.Lock()
			d, now := w.dirty[j.s]
			middle := now && !dirty && d >= firstSeq(j.msgs) && d <= lastSeq(j.msgs)
			if middle {
				w.unordered[j.s] = true
			}
			w.dirtyMu.Unlock()
			if middle {
				// behind ran during the append, for a message these skip
				// over: behind saw nothing written yet, so no one queued
				// the whole-file reconcile.
				_, err = w.reconcileNow(j.s, lastSeq(j.msgs))
			}
		}
	}
	if err != nil {
		w.log.Warn("transcript mirror write failed; it is caught up from the store later", "agent", j.s.agentID, "sessionId", j.s.sessionID, "err", err)
		w.dirtyMu.Lock()
		if _, ok := w.dirty[j.s]; !ok {
			w.dirty[j.s] = 0
		}
		w.dirtyMu.Unlock()
		return
	}
	if dirty && j.upTo >= hw {
		// The file holds everything up to this job's messages and nothing
		// after them: plain appends are safe again — unless behind marked
		// a later message while this job was written (hw is from before
		// it): clearing that mark would lose the message from the file.
		w.dirtyMu.Lock()
		if cur, ok := w.dirty[j.s]; ok && cur <= j.upTo {
			delete(w.dirty, j.s)
		}
		w.dirtyMu.Unlock()
	}
	w.retry(false)
}

// reconcileNow brings one session's file up to the store. A mirror that
// cannot reconcile gets nothing (it only appends).
// It returns the highest Seq the file now holds.
func (w *mirrorWriter) reconcileNow(s mirrorSession, upTo int64) (int64, error) {
	rec, ok := w.m.(Reconciler)
	if !ok {
		return 0, nil
	}
	msgs, err := w.store.ReadMessages(context.Background(), s.key, domain.MessageQuery{SessionID: s.sessionID})
	if err != nil {
		return 0, err
	}
	if upTo > 0 {
		n := len(msgs)
		for n > 0 && msgs[n-1].Seq > upTo {
			n--
		}
		msgs = msgs[:n]
	}
	w.dirtyMu.Lock()
	full := w.unordered[s]
	w.dirtyMu.Unlock()
	if fr, ok := w.m.(FullReconciler); ok && full {
		_, err = fr.ReconcileFull(s.agentID, s.sessionID, msgs)
	} else {
		_, err = rec.Reconcile(s.agentID, s.sessionID, msgs)
	}
	if err != nil {
		return 0, err
	}
	w.wrote(s, lastSeq(msgs))
	if full {
		w.dirtyMu.Lock()
		delete(w.unordered, s)
		w.dirtyMu.Unlock()
	}
	return lastSeq(msgs), nil
}

// wrote records that the file of s holds the messages up to Seq seq.
func (w *mirrorWriter) wrote(s mirrorSession, seq int64) {
	w.dirtyMu.Lock()
	w.written[s] = max(w.written[s], seq)
	w.dirtyMu.Unlock()
}

// firstSeq is the lowest Seq among msgs.
func firstSeq(msgs []domain.Message) int64 {
	n := msgs[0].Seq
	for _, m := range msgs[1:] {
		n = min(n, m.Seq)
	}
	return n
}

// retry reconciles the sessions whose writes failed, at most every
// retryDirty unless now is set.
func (w *mirrorWriter) retry(now bool) {
	w.dirtyMu.Lock()
	if len(w.dirty) == 0 || (!now && time.Since(w.lastRetry) < retryDirty) {
		w.dirtyMu.Unlock()
		return
	}
	w.lastRetry = time.Now()
	var todo []mirrorSession
	for s := range w.dirty {
		todo = append(todo, s)
	}
	w.dirtyMu.Unlock()
	for _, s := range todo {
		// The session stays dirty: appends still queued for messages this
		// reconcile writes become reconciles, which skip them.
		if hw, err := w.reconcileNow(s, 0); err == nil {
			w.dirtyMu.Lock()
			w.dirty[s] = max(w.dirty[s], hw)
			w.dirtyMu.Unlock()
		}
	}
}

// append queues a job, or writes it at once when the queue is full or
// closed. Per-session order holds because one session's runs are serial.
func (w *mirrorWriter) append(agentID, key, sessionID string, msgs []domain.Message, upTo int64) {
	w.queue(mirrorJob{s: mirrorSession{agentID, key, sessionID}, msgs: msgs, upTo: upTo})
}

// reconcile queues a catch-up of one session's file with the store, up to
// the message with Seq upTo.
func (w *mirrorWriter) reconcile(agentID, key, sessionID string, upTo int64) {
	w.queue(mirrorJob{s: mirrorSession{agentID, key, sessionID}, reconcile: true, upTo: upTo})
}

func (w *mirrorWriter) queue(j mirrorJob) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		w.write(j)
		return
	}
	select {
	case w.jobs <- j:
	default:
		w.write(j)
	}
}

// Stop stops accepting jobs and waits until the queued ones are written.
func (w *mirrorWriter) Stop() {
	w.mu.Lock()
	if !w.done {
		w.done = true
		close(w.jobs)
	}
	started := w.started
	w.mu.Unlock()
	w.wg.Wait()
	if !started {
		// Never started: what was queued is written here.
		for j := range w.jobs {
			w.write(j)
		}
	}
	w.retry(true)
	// The mirror may keep files open for appends; release them.
	if c, ok := w.m.(interface{ Close() error }); ok {
		if err := c.Close(); err != nil {
			w.log.Warn("transcript mirror close", "err", err)
		}
	}
}
