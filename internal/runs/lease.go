package runs

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/switchboard-go/switchboard/internal/replica"
)

// leaseKeeper keeps this replica's lease when replicas share the store: it
// renews it every LeaseInterval, runs the maintenance that rides on the
// same tick after each renewal, and handles the peers' signals on a second
// goroutine, so a busy stream of signals never delays a renewal. Start
// starts both goroutines; Stop ends them and waits.
type leaseKeeper struct {
	cfg leaseKeeperConfig

	mu      sync.Mutex
	cancel  context.CancelFunc
	stopped bool
	wg      sync.WaitGroup
}

// leaseKeeperConfig configures a leaseKeeper. Cluster is required.
type leaseKeeperConfig struct {
	Cluster replica.Cluster
	Logger  *slog.Logger
	// Interval is how often the lease is renewed (default the cluster's
	// LeaseInterval, else 5s).
	Interval time.Duration
	// OnLost runs when a renewal finds the lease taken over.
	OnLost func()
	// AfterRenew runs after each renewal, on the renewing goroutine.
	AfterRenew func(ctx context.Context)
	// OnSignal handles one peer's signal.
	OnSignal func(ctx context.Context, s replica.Signal)
}

func newLeaseKeeper(cfg leaseKeeperConfig) *leaseKeeper {
	if cfg.Interval <= 0 {
		cfg.Interval = cfg.Cluster.LeaseInterval()
	}
	if cfg.Interval <= 0 {
		cfg.Interval = 5 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.AfterRenew == nil {
		cfg.AfterRenew = func(context.Context) {}
	}
	if cfg.OnLost == nil {
		cfg.OnLost = func() {}
	}
	if cfg.OnSignal == nil {
		cfg.OnSignal = func(context.Context, replica.Signal) {}
	}
	return &leaseKeeper{cfg: cfg}
}

// Start starts the renewal and signal goroutines, which run until ctx ends
// or Stop. It does nothing once stopped, or for a cluster that is not
// shared.
func (k *leaseKeeper) Start(ctx context.Context) {
	if !k.cfg.Cluster.Shared() {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.stopped || k.cancel != nil {
		return
	}
	ctx, k.cancel = context.WithCancel(ctx)
	k.wg.Add(2)
	go func() {
		defer k.wg.Done()
		k.renewLoop(ctx)
	}()
	go func() {
		defer k.wg.Done()
		k.signalLoop(ctx)
	}()
}

// Stop ends the goroutines and waits for them.
func (k *leaseKeeper) Stop() {
	k.mu.Lock()
	k.stopped = true
	if k.cancel != nil {
		k.cancel()
	}
	k.mu.Unlock()
	k.wg.Wait()
}

func (k *leaseKeeper) renewLoop(ctx context.Context) {
	t := time.NewTicker(k.cfg.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			k.runOnce(ctx)
		}
	}
}

// runOnce renews the lease, handles its loss, and runs AfterRenew. It
// reports whether the lease was found lost.
func (k *leaseKeeper) runOnce(ctx context.Context) (lost bool) {
	if err := k.cfg.Cluster.Renew(ctx); err != nil {
		if errors.Is(err, replica.ErrLeaseLost) {
			k.cfg.OnLost()
			lost = true
		} else if ctx.Err() == nil {
			k.cfg.Logger.Warn("replica lease renewal failed", "err", err)
		}
	}
	k.cfg.AfterRenew(ctx)
	return lost
}

func (k *leaseKeeper) signalLoop(ctx context.Context) {
	signals := k.cfg.Cluster.Signals()
	for {
		select {
		case <-ctx.Done():
			return
		case s, ok := <-signals:
			if !ok {
				return
			}
			k.cfg.OnSignal(ctx, s)
		}
	}
}
