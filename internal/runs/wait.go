package runs

import (
	"context"
	"sync"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// Wait returns the run once it has ended, or its current state when
// timeout passes first (the caller tells the two apart with
// domain.RunTerminal). A run that already ended returns at once. ctx ending
// returns ctx's error.
func (rt *Runtime) Wait(ctx context.Context, runID string, timeout time.Duration) (domain.Run, error) {
	w, executing, ended := rt.addWaiter(runID)
	defer func() { rt.removeWaiter(runID, w) }()
	if ended != nil {
		return *ended, nil // ended here; its executor is finishing up
	}

	// A run executing here has not been woken for yet (its end wakes the
	// waiters after it is committed, its executor's exit wakes the rest),
	// so its row need not be read now: a turn's wait reads nothing.
	var r domain.Run
	read := false
	if !executing || timeout <= 0 {
		var err error
		r, err = rt.opts.Store.GetRun(ctx, runID)
		if err != nil || domain.RunTerminal(r.Status) || timeout <= 0 {
			return r, err
		}
		read = true
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	// With replicas the end of a run executed elsewhere arrives as a
	// signal; should one be lost, the run is read again now and then.
	var recheck <-chan time.Time
	if rt.shared() {
		t := time.NewTicker(waitRecheck)
		defer t.Stop()
		recheck = t.C
	}
	for {
		select {
		case <-w.done:
			if w.ended != nil {
				// The end this process committed: no need to read it back.
				return *w.ended, nil
			}
			cur, err := rt.opts.Store.GetRun(context.WithoutCancel(ctx), runID)
			if err != nil || domain.RunTerminal(cur.Status) {
				return cur, err
			}
			// Woken without an end (its executor here stopped without
			// ending it: it waits for its lane, or was queued again):
			// wait on, reading once more after registering.
			rt.removeWaiter(runID, w)
			w, _, _ = rt.addWaiter(runID)
			if cur, err = rt.opts.Store.GetRun(context.WithoutCancel(ctx), runID); err != nil || domain.RunTerminal(cur.Status) {
				return cur, err
			}
			r, read = cur, true
		case <-timer.C:
			return rt.opts.Store.GetRun(context.WithoutCancel(ctx), runID)
		case <-ctx.Done():
			if !read {
				r, _ = rt.opts.Store.GetRun(context.WithoutCancel(ctx), runID)
			}
			return r, ctx.Err()
		case <-recheck:
			cur, err := rt.opts.Store.GetRun(ctx, runID)
			if err != nil || !domain.RunTerminal(cur.Status) {
				continue
			}
			return cur, nil
		}
	}
}

// waitBoard holds the waits of this process: the waiters of each run, the
// runs executing here with their end once committed, and the ends of the
// runs that ended here last. One lock guards the three: a waiter that
// registers while its run ends here must see the end or be woken by it.
type waitBoard struct {
	mu      sync.Mutex
	waiters map[string]map[*waiter]struct{}
	// here maps each run executing here (or a steer it took in) to its end
	// once committed here, nil until then; it is forgotten when its
	// executor exits.
	here map[string]*domain.Run
	// recent holds the ends of the runs that ended here last, after
	// their executors exited.
	recent recentEnds
}

func newWaitBoard() *waitBoard {
	return &waitBoard{waiters: map[string]map[*waiter]struct{}{}, here: map[string]*domain.Run{}}
}

// begin notes that run id executes here: its waiters are woken by its end.
func (b *waitBoard) begin(id string) {
	b.mu.Lock()
	b.here[id] = nil
	b.mu.Unlock()
}

// forget drops run id from the runs executing here without waking anyone
// (a joined steer, whose end wakes its waiters).
func (b *waitBoard) forget(id string) {
	b.mu.Lock()
	delete(b.here, id)
	b.mu.Unlock()
}

// exit notes that the executor of run id exited: its end (when it ended
// here) moves to the recent ends, and the waiters that came after its end
// (or while it waited for its lane) are returned to be woken.
func (b *waitBoard) exit(id string) (map[*waiter]struct{}, *domain.Run) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ended := b.here[id]
	if ended != nil {
		b.recent.add(id, ended)
	}
	delete(b.here, id)
	set := b.waiters[id]
	delete(b.waiters, id)
	return set, ended
}

// addWaiter registers a waiter of runID and reports whether the run is
// executing here now, and its end when it ended here and its executor has
// not exited yet.
func (rt *Runtime) addWaiter(runID string) (*waiter, bool, *domain.Run) {
	w := &waiter{done: make(chan struct{})}
	b := rt.waits
	b.mu.Lock()
	defer b.mu.Unlock()
	set := b.waiters[runID]
	if set == nil {
		set = map[*waiter]struct{}{}
		b.waiters[runID] = set
	}
	set[w] = struct{}{}
	ended, executing := b.here[runID]
	if ended == nil {
		ended = b.recent.byID[runID]
	}
	return w, executing, ended
}

// recentRuns and recentBytes bound recentEnds: the waits that come right
// after a turn's submission (a quick turn has ended by then, its executor
// has usually exited) are answered without reading the run's row. The bytes bound keeps long messages and replies from holding
// much memory (a run's message may be 100,000 characters, its reply more).
const (
	recentRuns  = 1024
	recentBytes = 4 << 20
)

// recentEnds holds the ends of the last runs that ended here, oldest first
// out. An ended run's row does not change (only a deletion of its session
// removes it; a wait then still reports how it ended). Guarded by the
// wait board's mu.
type recentEnds struct {
	order []string // ids, oldest first from head
	head  int
	byID  map[string]*domain.Run
	bytes int
}

// runBytes estimates the memory an ended run holds.
func runBytes(r *domain.Run) int {
	return 512 + len(r.Spec) + len(r.Message) + len(r.Reply) + len(r.Error) + len(r.IdempotencyKey)
}

// add remembers the end of run id, forgetting the oldest ones while over
// a bound. A run larger than the bytes bound on its own is not kept.
func (r *recentEnds) add(id string, ended *domain.Run) {
	n := runBytes(ended)
	if n > recentBytes {
		return
	}
	if r.byID == nil {
		r.byID = make(map[string]*domain.Run)
	}
	if old, ok := r.byID[id]; ok {
		r.bytes += n - runBytes(old)
		r.byID[id] = ended
		return
	}
	r.order = append(r.order, id)
	r.byID[id] = ended
	r.bytes += n
	for len(r.byID) > recentRuns || r.bytes > recentBytes {
		old := r.order[r.head]
		r.order[r.head] = ""
		r.head++
		if e, ok := r.byID[old]; ok {
			r.bytes -= runBytes(e)
			delete(r.byID, old)
		}
	}
	if r.head > len(r.order)/2 {
		r.order = append(r.order[:0], r.order[r.head:]...)
		r.head = 0
	}
}

func (rt *Runtime) removeWaiter(runID string, w *waiter) {
	b := rt.waits
	b.mu.Lock()
	defer b.mu.Unlock()
	if set := b.waiters[runID]; set != nil {
		delete(set, w)
		if len(set) == 0 {
			delete(b.waiters, runID)
		}
	}
}

// waitRecheck is how often a wait re-reads its run when replicas share
// the store (a safety net under the signals, which wake it at once).
const waitRecheck = time.Second

// wake answers every waiter of runID. ended, when set, is the run's end
// as committed here, handed to the waiters instead of a read of the store;
// nil (a signal from another replica) makes them read it.
func (rt *Runtime) wake(runID string, ended *domain.Run) {
	b := rt.waits
	b.mu.Lock()
	set := b.waiters[runID]
	delete(b.waiters, runID)
	if _, executing := b.here[runID]; executing && ended != nil {
		// Until its executor exits, later waiters get the end from here.
		b.here[runID] = ended
	}
	b.mu.Unlock()
	for w := range set {
		w.ended = ended
		close(w.done)
	}
}
