package tracing

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Batching limits: the SDK batch processor's defaults, which the
// OTEL_BSP_* variables change as they change the SDK's.
const (
	batchDelay     = 5 * time.Second
	batchMax       = 512
	batchQueueMax  = 2048
	batchExportMax = 30 * time.Second
)

// batchLimits are one batcher's limits.
type batchLimits struct {
	delay, exportTimeout time.Duration
	max, queueMax        int
}

// batchLimitsFrom reads OTEL_BSP_SCHEDULE_DELAY and OTEL_BSP_EXPORT_TIMEOUT
// (milliseconds), OTEL_BSP_MAX_QUEUE_SIZE and OTEL_BSP_MAX_EXPORT_BATCH_SIZE;
// a value that is not a positive integer leaves the default, and a batch
// is never larger than the queue.
func batchLimitsFrom(getenv func(string) string) batchLimits {
	l := batchLimits{delay: batchDelay, exportTimeout: batchExportMax, max: batchMax, queueMax: batchQueueMax}
	num := func(name string) (int, bool) {
		n, err := strconv.Atoi(strings.TrimSpace(getenv(name)))
		return n, err == nil && n > 0
	}
	if n, ok := num("OTEL_BSP_SCHEDULE_DELAY"); ok {
		l.delay = time.Duration(n) * time.Millisecond
	}
	if n, ok := num("OTEL_BSP_EXPORT_TIMEOUT"); ok {
		l.exportTimeout = time.Duration(n) * time.Millisecond
	}
	if n, ok := num("OTEL_BSP_MAX_QUEUE_SIZE"); ok {
		l.queueMax = n
	}
	if n, ok := num("OTEL_BSP_MAX_EXPORT_BATCH_SIZE"); ok {
		l.max = n
	}
	l.max = min(l.max, l.queueMax)
	return l
}

// spanExporter sends a batch of ended spans; the batch is its own only
// until ExportSpans returns.
type spanExporter interface {
	ExportSpans(ctx context.Context, spans []*Span) error
	Shutdown(ctx context.Context) error
}

// batcher is what ended spans go to: they are appended to a slice
// under a lock, and its goroutine exports them when a batch is full or
// the batch delay has passed. The SDK's own batch processor hands each span
// to its goroutine over a channel, which wakes that goroutine once per
// span; on a quiet machine every wake-up is a context switch that a
// chat turn, ending four or five spans, waits beside.
type batcher struct {
	exp spanExporter
	lim batchLimits

	mu      sync.Mutex
	queue   []*Span
	dropped int
	stopped bool

	// free are exported Spans kept for the next starts, at most a
	// batch of them: a span waits for its whole batch before it is
	// free again, longer than a sync.Pool keeps anything on a busy
	// heap (it empties at every other collection).
	freeMu sync.Mutex
	free   []*Span

	kick     chan struct{}
	flush    chan chan error
	stop     chan struct{}
	done     chan struct{}
	stopOnce sync.Once
}

// newBatcher starts the exporting goroutine; Shutdown stops it.
func newBatcher(exp spanExporter, lim batchLimits) *batcher {
	b := &batcher{exp: exp, lim: lim, kick: make(chan struct{}, 1), flush: make(chan chan error),
		stop: make(chan struct{}), done: make(chan struct{})}
	go b.loop()
	return b
}

// OnEnd queues an ended span; past the queue limit spans are dropped
// (counted) rather than holding the turn that ended them.
func (b *batcher) OnEnd(s *Span) {
	b.mu.Lock()
	if b.stopped || len(b.queue) >= b.lim.queueMax {
		b.dropped++
		b.mu.Unlock()
		b.recycle(s)
		return
	}
	b.queue = append(b.queue, s)
	full := len(b.queue) == b.lim.max
	b.mu.Unlock()
	if full {
		select {
		case b.kick <- struct{}{}:
		default:
		}
	}
}

// take is a free Span, or a new one.
func (b *batcher) take() *Span {
	b.freeMu.Lock()
	if n := len(b.free); n > 0 {
		s := b.free[n-1]
		b.free[n-1] = nil
		b.free = b.free[:n-1]
		b.freeMu.Unlock()
		return s
	}
	b.freeMu.Unlock()
	return newSpan()
}

// recycle keeps ended spans, once exported or dropped, for take.
func (b *batcher) recycle(spans ...*Span) {
	b.freeMu.Lock()
	defer b.freeMu.Unlock()
	for _, s := range spans {
		if len(b.free) < b.lim.max && s.reset() {
			b.free = append(b.free, s)
		}
	}
}

func (b *batcher) loop() {
	defer close(b.done)
	t := time.NewTicker(b.lim.delay)
	defer t.Stop()
	for {
		select {
		case <-b.stop:
			return
		case <-t.C:
			_ = b.exportAll(context.Background())
		case <-b.kick:
			_ = b.exportAll(context.Background())
		case reply := <-b.flush:
			reply <- b.exportAll(context.Background())
		}
	}
}

// exportAll exports what is queued, a batch at a time; the exported
// spans are kept for reuse.
func (b *batcher) exportAll(ctx context.Context) error {
	var first error
	var batch []*Span
	for {
		b.mu.Lock()
		n := min(len(b.queue), b.lim.max)
		batch = append(batch[:0], b.queue[:n]...)
		b.queue = append(b.queue[:0], b.queue[n:]...)
		b.mu.Unlock()
		if n == 0 {
			return first
		}
		ectx, cancel := context.WithTimeout(ctx, b.lim.exportTimeout)
		if err := b.exp.ExportSpans(ectx, batch); err != nil && first == nil {
			first = err
		}
		cancel()
		b.recycle(batch...)
		clear(batch)
	}
}

// ForceFlush exports every queued span now.
func (b *batcher) ForceFlush(ctx context.Context) error {
	reply := make(chan error, 1)
	select {
	case b.flush <- reply:
	case <-b.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-reply:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Shutdown stops the goroutine, exports what is queued and shuts the
// exporter down.
func (b *batcher) Shutdown(ctx context.Context) error {
	var err error
	b.stopOnce.Do(func() {
		close(b.stop)
		<-b.done
		b.mu.Lock()
		b.stopped = true
		b.mu.Unlock()
		err = b.exportAll(ctx)
		if serr := b.exp.Shutdown(ctx); err == nil {
			err = serr
		}
	})
	return err
}
