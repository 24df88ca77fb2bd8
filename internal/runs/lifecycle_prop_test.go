package runs

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"pgregory.net/rapid"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/postgres"
	"github.com/switchboard-go/switchboard/internal/store/sqlite"
)

// lifeModel answers "now…" at once, holds "wait…" until the test lets one
// call go (step) or lets every call go (done), and asks for one tool call
// on "tool…" before answering.
type lifeModel struct {
	step chan struct{}
	done chan struct{}
}

func (m *lifeModel) Name() string                   { return "life" }
func (m *lifeModel) ThinkingLevels(string) []string { return []string{"off"} }
func (m *lifeModel) Complete(ctx context.Context, req domain.ModelRequest) (domain.ModelResponse, error) {
	last := req.Messages[len(req.Messages)-1]
	text := last.Content.Text()
	switch {
	case last.Role == domain.RoleToolResult:
	case strings.HasPrefix(text, "tool"):
		return domain.ModelResponse{Message: domain.Message{Role: domain.RoleAssistant, Content: domain.BlockContent(
			domain.Block{Type: domain.BlockToolCall, ID: domain.NewShortID(4), Name: "noop", Arguments: json.RawMessage(`{}`)})}}, nil
	case strings.HasPrefix(text, "wait"):
		select {
		case <-m.step:
		case <-m.done:
		case <-ctx.Done():
			return domain.ModelResponse{}, ctx.Err()
		}
	}
	return domain.ModelResponse{Message: domain.Message{Role: domain.RoleAssistant, Content: domain.BlockContent(domain.TextBlock("re: " + text)),
		Usage: &domain.Usage{Input: 1, Output: 1, TotalTokens: 2}}}, nil
}

type lifeModels struct{ m *lifeModel }

func (f lifeModels) Resolve(string) (domain.Provider, string, error) { return f.m, "life", nil }

// illegalLog is a log handler that keeps every record naming an illegal
// transition (the runtime logs the errors of writes it gives up on).
type illegalLog struct {
	mu   sync.Mutex
	seen []string
}

func (h *illegalLog) Enabled(context.Context, slog.Level) bool { return true }
func (h *illegalLog) Handle(_ context.Context, r slog.Record) error {
	line := r.Message
	r.Attrs(func(a slog.Attr) bool {
		if err, ok := a.Value.Any().(error); ok && errors.As(err, new(*domain.IllegalRunTransition)) {
			line += " " + err.Error()
		}
		line += " " + a.Value.String()
		return true
	})
	if strings.Contains(line, "illegal transition") {
		h.mu.Lock()
		h.seen = append(h.seen, line)
		h.mu.Unlock()
	}
	return nil
}
func (h *illegalLog) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *illegalLog) WithGroup(string) slog.Handler      { return h }

// lifecycle is the state of one interleaving: a store that outlives the
// runtimes started on it (a restart is the crash rule's way in), and what
// the test saw. On PostgreSQL two replicas share the store, each a runtime
// with its own store handle and cluster; on SQLite one runtime is alone.
type lifecycle struct {
	t       *rapid.T
	st      domain.Store // the test's own handle, for reading and resets
	pgURL   string       // "" for SQLite
	reps    []*lifeReplica
	joined  int // replicas started so far, to name the next one
	model   *lifeModel
	illegal *illegalLog

	mu   sync.Mutex
	ends map[string]int // run id → run end events

	seen  map[string]domain.RunStatus // run id → status last read
	acked map[string]domain.Run       // runs Submit acknowledged
	gens  map[string][]string         // session key → its sessionIds so far
	texts int
}

// lifeReplica is one runtime on the store; on PostgreSQL with its own store
// handle and cluster.
type lifeReplica struct {
	rt      *Runtime
	name    string
	st      *postgres.Store
	cluster *postgres.Cluster
}

var lifeKeys = []string{"agent:main:a", "agent:main:b"}

// lifeLease is long enough that no replica renews on its own during an
// interleaving: the test renews (and loses) leases itself.
const lifeLease = time.Hour

// start starts one more runtime on the store.
func (lc *lifecycle) start() {
	rep := &lifeReplica{}
	opts := Options{Store: lc.st, Models: lifeModels{lc.model}, Hooks: &hooks{}, MaxSteps: 5,
		Logger: slog.New(lc.illegal), Emit: func(ev domain.Event) {
			// A peer's end, told here by its signal, is not another end.
			if ev.Kind == domain.EventRunEnd && ev.Run != nil && ev.Replica == "" {
				lc.mu.Lock()
				lc.ends[ev.Run.ID]++
				lc.mu.Unlock()
			}
		}}
	if lc.pgURL != "" {
		lc.joined++
		rep.name = fmt.Sprintf("r%d", lc.joined)
		st, err := postgres.Open(context.Background(), lc.pgURL, postgres.Options{})
		if err != nil {
			lc.t.Fatal(err)
		}
		c, err := postgres.NewCluster(context.Background(), st, postgres.ClusterOptions{Lease: lifeLease, Replica: rep.name})
		if err != nil {
			st.Close()
			lc.t.Fatal(err)
		}
		rep.st, rep.cluster = st, c
		opts.Store, opts.Cluster = st, c
	}
	rt, err := New(opts)
	if err != nil {
		lc.t.Fatal(err)
	}
	if err := rt.Start(context.Background()); err != nil {
		lc.t.Fatal(err)
	}
	rep.rt = rt
	lc.reps = append(lc.reps, rep)
}

// stop stops replica i (its runtime, then its cluster and store handle).
func (lc *lifecycle) stop(i int) {
	rep := lc.reps[i]
	lc.reps = slices.Delete(lc.reps, i, i+1)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := rep.rt.Close(ctx); err != nil {
		lc.t.Fatal(err)
	}
	if rep.cluster != nil {
		rep.cluster.Close()
		rep.st.Close()
	}
}

func (lc *lifecycle) stopAll() {
	for len(lc.reps) > 0 {
		lc.stop(len(lc.reps) - 1)
	}
}

// rt returns the runtime of a replica the interleaving picks.
func (lc *lifecycle) rt(t *rapid.T) *Runtime {
	return lc.reps[rapid.IntRange(0, len(lc.reps)-1).Draw(t, "replica")].rt
}

// loseLease makes replica i lose its lease mid-run: the lease expires,
// another replica takes its runs over (the crash rule: queued again or
// aborted), and replica i's next renewal finds the lease gone and cancels
// the runs it held.
func (lc *lifecycle) loseLease(i int) {
	ctx := context.Background()
	lost, other := lc.reps[i], lc.reps[1-i]
	conn, err := pgx.Connect(ctx, lc.pgURL)
	if err != nil {
		lc.t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `UPDATE replica_leases SET expires_at = now() - interval '1 second' WHERE replica = $1`, lost.name); err != nil {
		lc.t.Fatal(err)
	}
	if other.rt.leases.runOnce(ctx) {
		lc.t.Fatalf("replica %s lost a lease nobody took", other.name)
	}
	if !lost.rt.leases.runOnce(ctx) {
		lc.t.Fatalf("replica %s kept a lease another replica took over", lost.name)
	}
}

func (lc *lifecycle) submit(rt *Runtime, key, text string, steer bool, idem string) {
	lc.texts++
	text = fmt.Sprintf("%s-%d", text, lc.texts)
	spec, _ := json.Marshal(Spec{UserMessage: &domain.Message{Role: domain.RoleUser, Content: domain.TextContent(text)}, Steer: steer})
	r := domain.Run{SessionKey: key, AgentID: "main", Kind: domain.RunKindChat, Spec: spec, Message: text, IdempotencyKey: idem}
	run, created, err := rt.Submit(context.Background(), r, func(tx domain.Tx) error {
		if _, err := tx.GetSession(key); err == nil {
			return nil
		}
		return tx.PutSession(domain.Session{Key: key, AgentID: "main", SessionID: lc.gens[key][0], Kind: "other"})
	})
	if err != nil {
		lc.t.Fatalf("submit %s: %v", text, err)
	}
	if created {
		lc.acked[run.ID] = run
	} else if _, ok := lc.acked[run.ID]; !ok {
		lc.t.Fatalf("a repeated idempotency key %q returned run %s, which was never acknowledged", idem, run.ID)
	}
}

// reset does what a session reset does: the session's queued and
// running runs are cancelled, then its transcript starts a new generation.
func (lc *lifecycle) reset(rt *Runtime, key string) {
	ctx := context.Background()
	runs, err := lc.st.ListRuns(ctx, domain.RunQuery{SessionKey: key, Statuses: []domain.RunStatus{domain.RunQueued, domain.RunRunning}})
	if err != nil {
		lc.t.Fatal(err)
	}
	for _, r := range runs {
		if _, err := rt.Cancel(ctx, r.ID); err != nil {
			lc.t.Fatal(err)
		}
	}
	sid := fmt.Sprintf("%s-gen%d", key, len(lc.gens[key]))
	lc.gens[key] = append(lc.gens[key], sid)
	err = lc.st.Update(ctx, func(tx domain.Tx) error {
		s, err := tx.GetSession(key)
		if errors.Is(err, domain.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		s.SessionID, s.UpdatedAt = sid, s.UpdatedAt+1
		return tx.PutSession(s)
	})
	if err != nil {
		lc.t.Fatal(err)
	}
}

// userMessages counts, per run, the user messages stored in every
// generation of every session.
func (lc *lifecycle) userMessages() map[string]int {
	n := map[string]int{}
	for key, sids := range lc.gens {
		for _, sid := range sids {
			msgs, err := lc.st.ReadMessages(context.Background(), key, domain.MessageQuery{SessionID: sid})
			if errors.Is(err, domain.ErrNotFound) {
				continue
			}
			if err != nil {
				lc.t.Fatal(err)
			}
			for _, m := range msgs {
				if m.Role == domain.RoleUser {
					n[m.RunID]++
				}
			}
		}
	}
	return n
}

// check asserts what holds at every instant: each run is in a legal
// status reached from the one last read along legal edges, no message is
// stored twice, no run ended twice or published an end not yet stored, and
// nothing was refused as an illegal transition.
func (lc *lifecycle) check() {
	// The ends are read before the rows: an end is published after its
	// commit, so each end read here is in the rows read next.
	lc.mu.Lock()
	ends := maps.Clone(lc.ends)
	lc.mu.Unlock()
	runs, err := lc.st.ListRuns(context.Background(), domain.RunQuery{})
	if err != nil {
		lc.t.Fatal(err)
	}
	status := map[string]domain.RunStatus{}
	for _, r := range runs {
		status[r.ID] = r.Status
		prev, ok := lc.seen[r.ID]
		if !ok {
			prev = domain.RunNew
		}
		if !reachable(prev, r.Status) {
			lc.t.Fatalf("run %s went from %q to %q, which no path of legal edges joins", r.ID, prev, r.Status)
		}
		lc.seen[r.ID] = r.Status
	}
	for id := range lc.acked {
		if _, ok := status[id]; !ok {
			lc.t.Fatalf("acknowledged run %s is not stored", id)
		}
	}
	for id, n := range lc.userMessages() {
		if n > 1 {
			lc.t.Fatalf("run %s's message is stored %d times", id, n)
		}
	}
	for id, n := range ends {
		if n > 1 || !domain.RunTerminal(status[id]) {
			lc.t.Fatalf("run %s: %d end records, stored status %q", id, n, status[id])
		}
	}
	lc.illegal.mu.Lock()
	defer lc.illegal.mu.Unlock()
	if len(lc.illegal.seen) > 0 {
		lc.t.Fatalf("illegal transitions attempted: %v", lc.illegal.seen)
	}
}

// reachable reports whether a path of legal edges leads from from to to
// (the empty path included).
func reachable(from, to domain.RunStatus) bool {
	seen := map[domain.RunStatus]bool{from: true}
	for changed := true; changed; {
		changed = false
		for _, e := range domain.RunEdges {
			if seen[e.From] && !seen[e.To] {
				seen[e.To], changed = true, true
			}
		}
	}
	return seen[to]
}

// settle lets every model call answer, waits for every acknowledged run
// to end and stops the runtime; then each ended run has exactly one end record, and each
// that ended ok stored its message exactly once.
func (lc *lifecycle) settle() {
	close(lc.model.done)
	for id := range lc.acked {
		r, err := lc.reps[0].rt.Wait(context.Background(), id, 20*time.Second)
		if err != nil || !domain.RunTerminal(r.Status) {
			lc.t.Fatalf("run %s did not end: %q %v", id, r.Status, err)
		}
	}
	// A waiter wakes as soon as the end is committed, before its event
	// goes out: the runtime's stop waits for every executor to be done.
	lc.stopAll()
	lc.check()
	msgs := lc.userMessages()
	lc.mu.Lock()
	defer lc.mu.Unlock()
	for id := range lc.acked {
		if lc.ends[id] != 1 {
			lc.t.Fatalf("ended run %s has %d end records", id, lc.ends[id])
		}
		if lc.seen[id] == domain.RunOK && msgs[id] != 1 {
			lc.t.Fatalf("run %s ended ok with its message stored %d times", id, msgs[id])
		}
	}
}

// Random interleavings of submit (idempotent repeats included), steer,
// cancel, restart (the crash rule), reset, lease loss (PostgreSQL) and model
// answers keep every run on the state machine, every acknowledged message
// stored once and every ended run recorded once, on both stores.
func TestRunLifecycleProperty(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		withChecks(t, 25)
		rapid.Check(t, func(t *rapid.T) {
			dir, err := os.MkdirTemp("", "lifecycle")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(dir)
			st, err := sqlite.Open(context.Background(), filepath.Join(dir, "db"), sqlite.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			runLifecycle(t, st, "", 1)
		})
	})
	t.Run("postgres", func(t *testing.T) {
		cluster := pg.Cluster(t) // skips with the reason when PostgreSQL is missing (never in CI)
		withChecks(t, 6)
		rapid.Check(t, func(t *rapid.T) {
			url, err := cluster.CreateDatabase(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			st, err := postgres.Open(context.Background(), url, postgres.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			runLifecycle(t, st, url, 2)
		})
	})
}

// withChecks runs n interleavings unless -rapid.checks says otherwise: each
// opens a store and starts runtimes, so fewer than rapid's default.
func withChecks(t *testing.T, n int) {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "rapid.checks" })
	if f := flag.Lookup("rapid.checks"); f != nil && !set {
		old := f.Value.String()
		if err := f.Value.Set(fmt.Sprint(n)); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = f.Value.Set(old) })
	}
}

// runLifecycle drives one interleaving on st with replicas runtimes.
func runLifecycle(t *rapid.T, st domain.Store, pgURL string, replicas int) {
	lc := &lifecycle{t: t, st: st, pgURL: pgURL, model: &lifeModel{step: make(chan struct{}), done: make(chan struct{})},
		illegal: &illegalLog{}, ends: map[string]int{}, seen: map[string]domain.RunStatus{},
		acked: map[string]domain.Run{}, gens: map[string][]string{}}
	for _, k := range lifeKeys {
		lc.gens[k] = []string{k + "-gen0"}
	}
	for range replicas {
		lc.start()
	}
	defer func() {
		select {
		case <-lc.model.done:
		default:
			close(lc.model.done) // let a failed interleaving's runs end
		}
		lc.stopAll()
	}()
	key := func(t *rapid.T) string { return rapid.SampledFrom(lifeKeys).Draw(t, "key") }
	t.Repeat(map[string]func(*rapid.T){
		"submit": func(t *rapid.T) {
			text := rapid.SampledFrom([]string{"now", "wait", "tool"}).Draw(t, "text")
			idem := rapid.SampledFrom([]string{"", "", "k1", "k2"}).Draw(t, "idem")
			lc.submit(lc.rt(t), key(t), text, false, idem)
		},
		"steer": func(t *rapid.T) { lc.submit(lc.rt(t), key(t), "now", true, "") },
		"cancel": func(t *rapid.T) {
			if len(lc.acked) == 0 {
				t.Skip("nothing to cancel")
			}
			ids := make([]string, 0, len(lc.acked))
			for id := range lc.acked {
				ids = append(ids, id)
			}
			slices.Sort(ids)
			id := rapid.SampledFrom(ids).Draw(t, "run")
			if _, err := lc.rt(t).Cancel(context.Background(), id); err != nil {
				t.Fatal(err)
			}
		},
		"restart": func(t *rapid.T) {
			lc.stop(rapid.IntRange(0, len(lc.reps)-1).Draw(t, "replica"))
			lc.start()
		},
		"reset": func(t *rapid.T) { lc.reset(lc.rt(t), key(t)) },
		"leaseLoss": func(t *rapid.T) {
			if len(lc.reps) < 2 {
				t.Skip("one runtime alone on its store holds no lease")
			}
			lc.loseLease(rapid.IntRange(0, 1).Draw(t, "replica"))
		},
		"answer": func(t *rapid.T) {
			select {
			case lc.model.step <- struct{}{}:
			case <-time.After(10 * time.Millisecond):
			}
		},
		"": func(t *rapid.T) { lc.check() },
	})
	lc.settle()
}
