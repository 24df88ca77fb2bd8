package storebench

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// Defaults of Options, chosen so a run over 100,000 sessions takes seconds.
const (
	DefaultIterations        = 50
	DefaultListAllIterations = 3
	DefaultConcurrentRounds  = 3
	// maxIterations bounds every iteration count, so a typo cannot run
	// for hours.
	maxIterations = 100_000
)

// Options tune Run. The zero value works.
type Options struct {
	// Iterations is how often each read and the sequential update run
	// (default DefaultIterations).
	Iterations int
	// ListAllIterations is how often the full listing runs (default
	// DefaultListAllIterations); it is the slow one.
	ListAllIterations int
	// ConcurrentRounds is how many updates each goroutine of the
	// concurrent update benchmarks does (default DefaultConcurrentRounds).
	ConcurrentRounds int
	// HistoryKey names the session whose history is read; pass
	// openclawimport.Summary.Largest when there is one. Empty means the
	// session with the most messages, found once before measuring with one
	// single-row read per session (seconds for 100,000 sessions).
	HistoryKey string
	// DBPath is the store's database file, for the disk figure. Empty
	// means the store's Path() when it has one; else disk is 0.
	DBPath string
	// Now is the clock for "active in the last 60 minutes" and for the
	// updatedAt written by updates; nil means time.Now.
	Now func() time.Time
}

func (o Options) withDefaults() (Options, error) {
	for _, f := range []struct {
		name string
		v    *int
		def  int
	}{
		{"Iterations", &o.Iterations, DefaultIterations},
		{"ListAllIterations", &o.ListAllIterations, DefaultListAllIterations},
		{"ConcurrentRounds", &o.ConcurrentRounds, DefaultConcurrentRounds},
	} {
		switch {
		case *f.v < 0 || *f.v > maxIterations:
			return o, fmt.Errorf("storebench: %s is %d, want 0..%d", f.name, *f.v, maxIterations)
		case *f.v == 0:
			*f.v = f.def
		}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o, nil
}

// Run measures st, which should already hold sessions (an imported
// OpenClaw state). The update benchmarks write: they bump updatedAt and
// the token counts of existing rows.
func Run(ctx context.Context, st domain.Store, opts Options) (Report, error) {
	var rep Report
	opts, err := opts.withDefaults()
	if err != nil {
		return rep, err
	}

	active := domain.SessionQuery{Limit: 200}
	if rep.ListActive60Limit200, err = measure(ctx, opts.Iterations, func() error {
		active.UpdatedSince = opts.Now().Add(-60 * time.Minute).UnixMilli()
		_, err := st.ListSessions(ctx, active)
		return err
	}); err != nil {
		return rep, fmt.Errorf("storebench: listActive60Limit200: %w", err)
	}

	// The memory figure is that of a process holding one full listing, so
	// the garbage and caches of whatever ran before (an import, typically)
	// go first.
	if r, ok := st.(interface{ ReleaseMemory(context.Context) error }); ok {
		if err := r.ReleaseMemory(ctx); err != nil {
			return rep, fmt.Errorf("storebench: release memory: %w", err)
		}
	}
	runtime.GC()
	debug.FreeOSMemory()
	var (
		all    []domain.Session
		memErr error
	)
	if rep.ListAll, err = measure(ctx, opts.ListAllIterations, func() error {
		all = nil // let the previous result go before the next one lands
		var err error
		all, err = st.ListSessions(ctx, domain.SessionQuery{})
		if err == nil && rep.MemMB == (Mem{}) && memErr == nil {
			rep.MemMB, memErr = readMem()
		}
		return err
	}); err != nil {
		return rep, fmt.Errorf("storebench: listAll: %w", err)
	}
	if memErr != nil {
		return rep, fmt.Errorf("storebench: memory: %w", memErr)
	}
	if len(all) == 0 {
		return rep, errors.New("storebench: the store has no sessions; import a state first")
	}

	key := opts.HistoryKey
	if key == "" {
		if key, err = biggest(ctx, st, all); err != nil {
			return rep, fmt.Errorf("storebench: find the longest transcript: %w", err)
		}
	}
	if rep.HistoryLast50Big, err = measure(ctx, opts.Iterations, func() error {
		_, err := st.ReadMessages(ctx, key, domain.MessageQuery{Limit: 50})
		return err
	}); err != nil {
		return rep, fmt.Errorf("storebench: historyLast50Big: %w", err)
	}

	keys := make([]string, len(all))
	for i, s := range all {
		keys[i] = s.Key
	}
	all = nil
	u := updater{st: st, keys: keys, now: opts.Now}
	next := 0
	if rep.UpdateEntrySequential, err = measure(ctx, opts.Iterations, func() error {
		next++
		return u.update(ctx, next)
	}); err != nil {
		return rep, fmt.Errorf("storebench: updateEntrySequential: %w", err)
	}
	if rep.UpdateEntryConcurrent8, err = u.concurrent(ctx, 8, opts.ConcurrentRounds); err != nil {
		return rep, fmt.Errorf("storebench: updateEntryConcurrent8: %w", err)
	}
	if rep.UpdateEntryConcurrent64, err = u.concurrent(ctx, 64, opts.ConcurrentRounds); err != nil {
		return rep, fmt.Errorf("storebench: updateEntryConcurrent64: %w", err)
	}

	dbPath := opts.DBPath
	if p, ok := st.(interface{ Path() string }); ok && dbPath == "" {
		dbPath = p.Path()
	}
	if dbPath != "" {
		// The size at rest: what a store holds once its writer has been
		// idle, not the WAL the updates above just wrote.
		if c, ok := st.(interface{ CheckpointTruncate(context.Context) error }); ok {
			if err := c.CheckpointTruncate(ctx); err != nil {
				return rep, fmt.Errorf("storebench: disk: %w", err)
			}
		}
		if rep.Disk, err = diskSize(dbPath); err != nil {
			return rep, fmt.Errorf("storebench: disk: %w", err)
		}
	} else if d, ok := st.(interface {
		DiskSize(context.Context) (int64, error)
	}); ok { // a database server's store (PostgreSQL)
		if rep.Disk, err = d.DiskSize(ctx); err != nil {
			return rep, fmt.Errorf("storebench: disk: %w", err)
		}
	}
	return rep, nil
}

// measure runs op n times and summarizes the latencies.
func measure(ctx context.Context, n int, op func() error) (Stat, error) {
	samples := make([]time.Duration, 0, n)
	for range n {
		if err := ctx.Err(); err != nil {
			return Stat{}, err
		}
		start := time.Now()
		if err := op(); err != nil {
			return Stat{}, err
		}
		samples = append(samples, time.Since(start))
	}
	return summarize(samples), nil
}

// biggest returns the key of the session with the most messages. The seq
// of a key's newest message counts every message ever appended to it, so
// one single-row read per session finds it without reading transcripts.
func biggest(ctx context.Context, st domain.StoreReader, rows []domain.Session) (string, error) {
	const workers = 8
	type best struct {
		key string
		seq int64
		err error
	}
	results := make([]best, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := &results[w]
			for i := w; i < len(rows); i += workers {
				msgs, err := st.ReadMessages(ctx, rows[i].Key, domain.MessageQuery{Limit: 1})
				if err != nil {
					r.err = fmt.Errorf("read %s: %w", rows[i].Key, err)
					return
				}
				if len(msgs) > 0 && (msgs[0].Seq > r.seq || r.key == "") {
					r.key, r.seq = rows[i].Key, msgs[0].Seq
				}
			}
		}()
	}
	wg.Wait()
	var b best
	for _, r := range results {
		if r.err != nil {
			return "", r.err
		}
		if r.key != "" && (r.seq > b.seq || b.key == "") {
			b = r
		}
	}
	if b.key == "" {
		return rows[0].Key, nil // no session has messages; measure an empty read
	}
	return b.key, nil
}

// updater does the "update entry" operation OpenClaw does after every run:
// read the session row, bump updatedAt and tokens, write it back.
type updater struct {
	st   domain.Store
	keys []string
	now  func() time.Time
}

func (u updater) update(ctx context.Context, i int) error {
	key := u.keys[i%len(u.keys)]
	return u.st.Update(ctx, func(tx domain.Tx) error {
		s, err := tx.GetSession(key)
		if err != nil {
			return err
		}
		s.UpdatedAt = u.now().UnixMilli()
		s.InputTokens += 120
		s.OutputTokens += 30
		s.TotalTokens += 150
		return tx.PutSession(s)
	})
}

// concurrent starts goroutines that each do rounds updates at once, on
// distinct sessions, and summarizes every update's latency.
func (u updater) concurrent(ctx context.Context, goroutines, rounds int) (Stat, error) {
	var (
		wg      sync.WaitGroup
		start   = make(chan struct{})
		samples = make([][]time.Duration, goroutines)
		errs    = make([]error, goroutines)
	)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for r := range rounds {
				if errs[g] = ctx.Err(); errs[g] != nil {
					return
				}
				t0 := time.Now()
				if errs[g] = u.update(ctx, g*rounds+r); errs[g] != nil {
					return
				}
				samples[g] = append(samples[g], time.Since(t0))
			}
		}()
	}
	close(start)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return Stat{}, err
	}
	var all []time.Duration
	for _, s := range samples {
		all = append(all, s...)
	}
	return summarize(all), nil
}
