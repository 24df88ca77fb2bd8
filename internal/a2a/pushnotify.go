package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/switchboard-go/switchboard/internal/a2a/wire"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/urlguard"
)

// PushOptions configure Pushes. Store, Subscribe and Guard are required.
type PushOptions struct {
	Store PushStore
	// Subscribe is the engine's event feed: a run's start and end are
	// enqueued as soon as they happen.
	Subscribe func(buffer int) (<-chan domain.Event, func())
	// Poke makes the outbox worker look for due items now (nil: its
	// next pass finds them).
	Poke func()
	// Guard checks a push URL when its config is made (and
	// PushDeliverer again at each delivery).
	Guard *urlguard.Guard
	// Interval is how often the tasks with configs that have not ended
	// are read again, so an event the feed dropped is not lost
	// (default 2s).
	Interval time.Duration
	Now      func() time.Time
	Logger   *slog.Logger
}

// Pushes turns the updates of tasks that have push configs into outbox
// items. Events are only a shortcut: the tasks being watched are read
// again every Interval, and at Start every task with configs among the
// recent and unfinished runs is read, so an update committed just before
// the process died is enqueued after it restarts. Every update has one
// outbox key per config, so finding it twice enqueues it once.
type Pushes struct {
	o PushOptions

	mu      sync.Mutex
	watched map[string]struct{} // task ids with configs, not ended
	cancel  context.CancelFunc
	done    chan struct{}
	swept   chan struct{} // closed when the start-up sweep has ended
}

// sweepRecent is how many of the newest runs the start-up sweep reads,
// besides every run that has not ended.
const sweepRecent = 200

// NewPushes builds Pushes.
func NewPushes(o PushOptions) (*Pushes, error) {
	if o.Store == nil || o.Subscribe == nil || o.Guard == nil {
		return nil, errors.New("a2a: PushOptions.Store, Subscribe and Guard are required")
	}
	if o.Interval <= 0 {
		o.Interval = 2 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Poke == nil {
		o.Poke = func() {}
	}
	return &Pushes{o: o, watched: map[string]struct{}{}, swept: make(chan struct{})}, nil
}

// Swept is closed once the start-up sweep has read the runs it reads:
// from then on only events and the Interval's passes enqueue updates.
func (p *Pushes) Swept() <-chan struct{} { return p.swept }

// Start subscribes to the event feed, then sweeps and runs until Stop.
func (p *Pushes) Start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done != nil {
		return errors.New("a2a: pushes already started")
	}
	// Subscribed before the sweep: an update is either committed before
	// the sweep reads it or announced after.
	events, unsubscribe := p.o.Subscribe(256)
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel, p.done = cancel, make(chan struct{})
	go p.loop(ctx, events, unsubscribe, p.done)
	return nil
}

// Stop ends the loop and waits for it.
func (p *Pushes) Stop() {
	p.mu.Lock()
	cancel, done := p.cancel, p.done
	p.mu.Unlock()
	if done == nil {
		return
	}
	cancel()
	<-done
}

func (p *Pushes) loop(ctx context.Context, events <-chan domain.Event, unsubscribe func(), done chan struct{}) {
	defer close(done)
	defer unsubscribe()
	p.sweep(ctx)
	close(p.swept)
	tick := time.NewTicker(p.o.Interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				return
			}
			if (ev.Kind == domain.EventRunStart || ev.Kind == domain.EventRunEnd) && ev.Run != nil && p.isWatched(ev.Run.ID) {
				p.syncLogged(ctx, *ev.Run)
			}
		case <-tick.C:
			for _, id := range p.watchedIDs() {
				run, err := p.o.Store.GetRun(ctx, id)
				if errors.Is(err, domain.ErrNotFound) {
					p.unwatch(id)
					continue
				}
				if err != nil {
					p.o.Logger.Warn("a2a push: read task", "task", id, "err", err)
					continue
				}
				p.syncLogged(ctx, run)
			}
		}
	}
}

// sweep reads every run that has not ended and the newest ones, and
// enqueues the current state of those with configs.
func (p *Pushes) sweep(ctx context.Context) {
	active, err := p.o.Store.ListRuns(ctx, domain.RunQuery{Statuses: []domain.RunStatus{domain.RunQueued, domain.RunRunning}})
	if err != nil {
		p.o.Logger.Warn("a2a push: sweep", "err", err)
		return
	}
	recent, err := p.o.Store.ListRuns(ctx, domain.RunQuery{Limit: sweepRecent})
	if err != nil {
		p.o.Logger.Warn("a2a push: sweep", "err", err)
		return
	}
	seen := map[string]bool{}
	for _, run := range append(active, recent...) {
		if seen[run.ID] || ctx.Err() != nil {
			continue
		}
		seen[run.ID] = true
		p.syncLogged(ctx, run)
	}
}

func (p *Pushes) syncLogged(ctx context.Context, run domain.Run) {
	if err := p.sync(ctx, run); err != nil && ctx.Err() == nil {
		p.o.Logger.Warn("a2a push: enqueue task update", "task", run.ID, "err", err)
	}
}

// sync enqueues the updates of run's current state for each of its
// configs, and watches it until it ends.
func (p *Pushes) sync(ctx context.Context, run domain.Run) error {
	configs, err := pushConfigs(ctx, p.o.Store, run.ID)
	if err != nil {
		return err
	}
	if len(configs) == 0 {
		p.unwatch(run.ID)
		return nil
	}
	if domain.RunTerminal(run.Status) {
		defer p.unwatch(run.ID)
	} else {
		p.watch(run.ID)
	}
	now := p.o.Now().UnixMilli()
	var items []domain.OutboxItem
	for _, c := range configs {
		for _, u := range pushUpdates(run, c.Gen) {
			payload, err := json.Marshal(pushItem{Config: c.key, Update: u.name, ContentType: u.contentType, Body: u.body})
			if err != nil {
				return err
			}
			items = append(items, domain.OutboxItem{
				IdempotencyKey: "a2a-push:" + strconv.FormatInt(c.row, 10) + ":" + run.ID + ":" + u.name,
				Kind:           PushKind, SessionKey: run.SessionKey, RunID: run.ID, Payload: payload,
				Status: domain.OutboxPending, NextAttemptAt: now, CreatedAt: now,
			})
		}
	}
	created := false
	err = p.o.Store.Update(ctx, func(tx domain.Tx) error {
		created = false
		for _, it := range items {
			_, c, err := tx.EnqueueOutbox(it)
			if err != nil {
				return err
			}
			created = created || c
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("enqueue push of task %s: %w", run.ID, err)
	}
	if created {
		p.o.Poke()
	}
	return nil
}

func (p *Pushes) watch(id string) {
	p.mu.Lock()
	p.watched[id] = struct{}{}
	p.mu.Unlock()
}

func (p *Pushes) unwatch(id string) {
	p.mu.Lock()
	delete(p.watched, id)
	p.mu.Unlock()
}

func (p *Pushes) isWatched(id string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, ok := p.watched[id]
	return ok
}

func (p *Pushes) watchedIDs() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]string, 0, len(p.watched))
	for id := range p.watched {
		out = append(out, id)
	}
	return out
}

// pushItem is the payload of a PushKind outbox item: which config, which
// update, and the body posted.
type pushItem struct {
	Config      string          `json:"config"`
	Update      string          `json:"update"`
	ContentType string          `json:"contentType"`
	Body        json.RawMessage `json:"body"`
}

// pushUpdate is one notification of a task's state.
type pushUpdate struct {
	name        string
	contentType string
	body        json.RawMessage
}

// Content types of notifications: 1.0 posts StreamResponse objects, 0.3
// posts the task.
const (
	pushContentType       = "application/a2a+json"
	legacyPushContentType = "application/json"
)

// pushUpdates are the notifications of run's current state: in 1.0 a
// status update (and, for a completed task, the reply artifact before
// it); in 0.3 the task as it is.
func pushUpdates(run domain.Run, gen string) []pushUpdate {
	if run.Status == domain.RunQueued && run.Attempt > 1 {
		// Queued again after a restart: the task was submitted long ago
		// and stays WORKING for its client.
		return nil
	}
	ctxID := ContextOf(run.SessionKey)
	state := StateOf(run.Status)
	if gen == wire.LegacyVersion {
		b, err := json.Marshal(legacyTask(TaskOf(run, nil)))
		if err != nil {
			return nil
		}
		return []pushUpdate{{name: string(state), contentType: legacyPushContentType, body: b}}
	}
	var out []pushUpdate
	if a, ok := replyArtifact(run); ok {
		b, err := json.Marshal(wire.StreamResponse{ArtifactUpdate: &wire.TaskArtifactUpdateEvent{TaskID: run.ID, ContextID: ctxID,
			Artifact: a, LastChunk: true}})
		if err == nil {
			out = append(out, pushUpdate{name: "artifact:" + a.ArtifactID, contentType: pushContentType, body: b})
		}
	}
	b, err := json.Marshal(wire.StreamResponse{StatusUpdate: &wire.TaskStatusUpdateEvent{TaskID: run.ID, ContextID: ctxID,
		Status: statusOf(run, ctxID)}})
	if err == nil {
		out = append(out, pushUpdate{name: string(state), contentType: pushContentType, body: b})
	}
	return out
}
