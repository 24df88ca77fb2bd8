package loadbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/app"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// ChatOptions configure RunChat.
type ChatOptions struct {
	Sessions    int           // sessions the turns are spread over
	Duration    time.Duration // how long turns are measured
	Concurrency int           // callers in flight (each: chat, then wait for the run)
	Progress    io.Writer     // a progress line a second; nil for none
}

// ChatReport is what bench chat measured.
type ChatReport struct {
	Bench          string  `json:"bench"` // "chat"
	Sessions       int     `json:"sessions"`
	Concurrency    int     `json:"concurrency"`
	Seconds        float64 `json:"seconds"`
	Turns          int64   `json:"turns"`
	TurnsPerSecond float64 `json:"turnsPerSecond"`
	Errors         int64   `json:"errors"`
	FirstError     string  `json:"firstError,omitempty"`
	// LatencyMs is per turn: the chat call until the run's wait returns
	// (user message stored, the script model's reply stored, run ended).
	LatencyMs Latency `json:"latencyMs"`
	// WarmupSeconds is the unmeasured first turn of every session (which
	// creates it).
	WarmupSeconds float64 `json:"warmupSeconds"`
	Machine       Machine `json:"machine"`
}

// Machine says where a report was measured.
type Machine struct {
	CPUs      int    `json:"cpus"`
	GOOS      string `json:"goos"`
	GOARCH    string `json:"goarch"`
	GoVersion string `json:"goVersion"`
}

func thisMachine() Machine {
	return Machine{CPUs: runtime.NumCPU(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, GoVersion: runtime.Version()}
}

// chatConfig is the defaults with every agent on the script model (no
// rules: it answers every message at once) and a main lane wide enough
// for every caller.
func chatConfig(concurrency int) (*config.Config, error) {
	c := config.Default()
	c.Agents.Defaults.Model = "script"
	c.Agents.List = []config.AgentConfig{{ID: "main", Name: "Main", Default: true}}
	if c.Models.Providers == nil {
		c.Models.Providers = map[string]config.ProviderConfig{}
	}
	c.Models.Providers["script"] = config.ProviderConfig{}
	c.Runtime.Lanes.Main = max(c.Runtime.Lanes.Main, concurrency)
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("bench config:\n%w", err)
	}
	return c, nil
}

// RunChat opens a fresh state dir (removed afterwards) with the script
// model and drives chat turns over opts.Sessions sessions from
// opts.Concurrency callers for opts.Duration.
func RunChat(ctx context.Context, opts ChatOptions) (rep ChatReport, err error) {
	if opts.Sessions < 1 || opts.Concurrency < 1 || opts.Duration <= 0 {
		return rep, errors.New("bench chat: sessions, concurrency and duration must be positive")
	}
	cfg, err := chatConfig(opts.Concurrency)
	if err != nil {
		return rep, err
	}
	dir, err := os.MkdirTemp("", "switchboard-bench-chat-")
	if err != nil {
		return rep, fmt.Errorf("bench chat: %w", err)
	}
	defer os.RemoveAll(dir)
	a, err := app.Open(ctx, app.Options{StateDir: dir, Config: cfg, Getenv: os.Getenv,
		Logger: slog.New(slog.DiscardHandler), Owner: "bench"})
	if err != nil {
		return rep, fmt.Errorf("bench chat: %w", err)
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		err = errors.Join(err, a.Close(cctx))
	}()
	svc := a.Engine
	op := api.Operator()
	turn := func(ctx context.Context, key string) error {
		res, err := svc.Chat(ctx, op, api.ChatRequest{SessionKey: key, Message: "hi"})
		if err != nil {
			return err
		}
		r, err := svc.WaitRun(ctx, op, api.WaitRequest{RunID: res.Run.ID, Timeout: 30 * time.Second})
		if err != nil {
			return err
		}
		if r.Status != domain.RunOK {
			return fmt.Errorf("run %s ended %s: %s", r.ID, r.Status, r.Error)
		}
		return nil
	}
	key := func(i int64) string { return "agent:main:bench" + strconv.FormatInt(i%int64(opts.Sessions), 10) }

	rep = ChatReport{Bench: "chat", Sessions: opts.Sessions, Concurrency: opts.Concurrency, Machine: thisMachine()}
	var (
		next     atomic.Int64
		done     atomic.Int64
		errs     atomic.Int64
		firstErr atomic.Value
		rec      recorder
	)
	fail := func(err error) {
		errs.Add(1)
		firstErr.CompareAndSwap(nil, err.Error())
	}
	// Warm-up: the first turn of each session creates it; not measured.
	started := time.Now()
	var wg sync.WaitGroup
	for range opts.Concurrency {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(opts.Sessions) && ctx.Err() == nil; i = next.Add(1) - 1 {
				if err := turn(ctx, key(i)); err != nil {
					fail(err)
				}
			}
		})
	}
	wg.Wait()
	rep.WarmupSeconds = time.Since(started).Seconds()
	if err := ctx.Err(); err != nil {
		return rep, fmt.Errorf("bench chat: %w", err)
	}
	if n := errs.Load(); n > 0 {
		return rep, fmt.Errorf("bench chat: warm-up: %d turns failed; first: %v", n, firstErr.Load())
	}

	next.Store(0)
	runCtx, stop := context.WithTimeout(ctx, opts.Duration)
	defer stop()
	progCtx, stopProgress := context.WithCancel(ctx)
	var pwg sync.WaitGroup
	pwg.Go(func() { progress(progCtx, opts.Progress, "turns", opts.Duration, &done, &errs) })
	started = time.Now()
	for range opts.Concurrency {
		wg.Go(func() {
			var mine []time.Duration
			for runCtx.Err() == nil {
				t0 := time.Now()
				// The turn itself is not bound by runCtx: one that started
				// finishes, so the end of the run is not counted as errors.
				if err := turn(ctx, key(next.Add(1))); err != nil {
					if ctx.Err() == nil {
						fail(err)
					}
					continue
				}
				mine = append(mine, time.Since(t0))
				done.Add(1)
			}
			rec.merge(mine)
		})
	}
	wg.Wait()
	elapsed := time.Since(started)
	stopProgress()
	pwg.Wait()
	if err := ctx.Err(); err != nil {
		return rep, fmt.Errorf("bench chat: %w", err)
	}
	rep.Seconds = elapsed.Seconds()
	rep.Turns = done.Load()
	rep.TurnsPerSecond = float64(rep.Turns) / elapsed.Seconds()
	rep.Errors = errs.Load()
	if v, ok := firstErr.Load().(string); ok {
		rep.FirstError = v
	}
	rep.LatencyMs = summarize(rec.all)
	return rep, nil
}
