package runs

import (
	"sync"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// scheduler is the state of the session lanes here: each session's queue
// of runs and whether a goroutine drains it, the slots of each lane kind,
// and, for a runtime with OwnWorkOnly, the runs that are its work
// (own.go). One lock guards them: adopting the runs queued ahead of a new
// one and queueing them is one step, or a lane's FIFO order could break.
//
// It owns the goroutines that carry out runs (the lanes' drainers and the
// runs started at submission): Stop refuses new work, and Wait returns
// once every one of them has exited.
type scheduler struct {
	mu      sync.Mutex
	closing bool
	lanes   map[string]*lane
	// owned holds the runs that are this process's work; nil unless
	// OwnWorkOnly (every run is then).
	owned map[string]bool
	// sems bounds the runs executing per lane kind (set at construction).
	sems map[domain.Lane]chan struct{}
	// hold records submitted runs without executing them (Options.Hold).
	hold bool
	wg   sync.WaitGroup
}

// schedulerConfig configures the lanes.
type schedulerConfig struct {
	// Lanes bounds concurrent runs per lane kind (default 64 each).
	Lanes map[domain.Lane]int
	// Hold and OwnWorkOnly are Options' fields of the same names.
	Hold, OwnWorkOnly bool
}

func newScheduler(cfg schedulerConfig) *scheduler {
	sems := map[domain.Lane]chan struct{}{}
	for _, name := range []domain.Lane{domain.LaneMain, domain.LaneNested, domain.LaneSubagent} {
		n := cfg.Lanes[name]
		if n <= 0 {
			n = 64
		}
		sems[name] = make(chan struct{}, n)
	}
	var owned map[string]bool
	if cfg.OwnWorkOnly {
		owned = map[string]bool{}
	}
	return &scheduler{lanes: map[string]*lane{}, owned: owned, sems: sems, hold: cfg.Hold}
}

// Stop refuses new work: nothing is queued or started from now on.
func (s *scheduler) Stop() {
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
}

// Wait returns once every goroutine carrying out runs has exited.
func (s *scheduler) Wait() { s.wg.Wait() }

func (s *scheduler) isClosing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing
}

// queueDepth returns how many runs wait in the lanes.
func (s *scheduler) queueDepth() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, l := range s.lanes {
		n += len(l.queue)
	}
	return n
}

// idle reports whether the lane of session key is free.
func (s *scheduler) idle(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lanes[key] == nil
}

// busy reports whether any lane has a run queued or a drainer.
func (s *scheduler) busy() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.lanes) > 0
}

func (s *scheduler) semFor(laneKind domain.Lane) chan struct{} {
	if sem := s.sems[laneKind]; sem != nil {
		return sem
	}
	return s.sems[domain.LaneMain]
}

type lane struct {
	queue   []domain.Run
	running bool
	// steers counts the steer runs enqueued since the lane's running run
	// last looked (steer.go); 0 spares it the scan.
	steers int
}

// reservation is an idle lane taken for a run claimed at submission.
type reservation struct {
	key  string
	lane *lane
	sem  chan struct{}
}

// reserveIdleLane takes the lane of r's session and a slot of its lane
// kind when both are free, counting the goroutine that will own the lane.
func (rt *Runtime) reserveIdleLane(r domain.Run) *reservation {
	rt.sched.mu.Lock()
	defer rt.sched.mu.Unlock()
	if rt.sched.closing || rt.sched.hold || rt.sched.lanes[r.SessionKey] != nil {
		return nil
	}
	sem := rt.sched.semFor(r.Lane)
	select {
	case sem <- struct{}{}:
	default:
		return nil
	}
	l := &lane{running: true}
	rt.sched.lanes[r.SessionKey] = l
	rt.sched.wg.Add(1)
	return &reservation{key: r.SessionKey, lane: l, sem: sem}
}

// releaseLane gives back a reservation that was not used: its slot, and
// its lane to a drainer if runs were queued behind it meanwhile.
func (rt *Runtime) releaseLane(res *reservation) {
	<-res.sem
	go func() {
		defer rt.sched.wg.Done()
		rt.drainLane(res.key, res.lane)
	}()
}

// enqueue appends r to its session's lane and starts the lane's drainer.
// A scoped runtime leaves a run that is not its work queued in the store.
func (rt *Runtime) enqueue(r domain.Run) {
	rt.sched.mu.Lock()
	defer rt.sched.mu.Unlock()
	if rt.scoped() && !rt.sched.owned[r.ID] {
		return
	}
	rt.enqueueLocked(r)
}

// enqueueLocked is enqueue for a caller holding rt.sched.mu.
func (rt *Runtime) enqueueLocked(r domain.Run) {
	if rt.sched.closing || rt.sched.hold {
		return
	}
	l := rt.sched.lanes[r.SessionKey]
	if l == nil {
		l = &lane{}
		rt.sched.lanes[r.SessionKey] = l
	}
	l.queue = append(l.queue, r)
	if isSteer(r) {
		l.steers++
	}
	if !l.running {
		l.running = true
		rt.sched.wg.Add(1)
		go rt.drain(r.SessionKey, l)
	}
}

// drain executes a session's queued runs one at a time until the lane is
// empty. It owns the lane while it runs.
func (rt *Runtime) drain(key string, l *lane) {
	defer rt.sched.wg.Done()
	rt.drainLane(key, l)
}

// drainLane is drain's loop, for a caller that already counted itself in
// rt.sched.wg.
func (rt *Runtime) drainLane(key string, l *lane) {
	for {
		rt.sched.mu.Lock()
		if len(l.queue) == 0 || rt.sched.closing {
			l.running = false
			delete(rt.sched.lanes, key)
			rt.sched.mu.Unlock()
			return
		}
		r := l.queue[0]
		l.queue = l.queue[1:]
		rt.sched.mu.Unlock()

		sem := rt.sched.semFor(r.Lane)
		select {
		case sem <- struct{}{}:
		case <-rt.exec.ctx.Done():
			continue // closing: the loop exits, the run stays queued
		}
		rt.execute(r)
		<-sem
	}
}
