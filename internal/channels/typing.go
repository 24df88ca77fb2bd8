package channels

import (
	"context"
	"time"
)

// RunWaiter is a Sink that can wait for the run of a turn it started to
// end. Adapters use it to show the typing action while the run runs.
type RunWaiter interface {
	// WaitRun returns when the run has ended, or ctx has.
	WaitRun(ctx context.Context, runID string) error
}

// Typing defaults: the providers show a typing action for about five
// seconds (Telegram) or ten (Discord), so it is repeated while the run
// runs, and never for longer than TypingMax.
const (
	TypingEvery = 4 * time.Second
	TypingMax   = 2 * time.Minute
)

// KeepTyping calls send at once and then every `every` until the run
// ends (as sink's RunWaiter tells), ctx ends or TypingMax passes. A sink
// that cannot wait gets one action. A failed send ends the typing: it is
// a courtesy, never retried. The caller owns the goroutine KeepTyping
// runs in.
func KeepTyping(ctx context.Context, sink Sink, runID string, every time.Duration, send func(context.Context) error) {
	if runID == "" {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, TypingMax)
	defer cancel()
	ended := make(chan struct{})
	w, ok := sink.(RunWaiter)
	if !ok {
		_ = send(ctx)
		return
	}
	go func() {
		defer close(ended)
		_ = w.WaitRun(ctx, runID)
	}()
	defer func() { cancel(); <-ended }()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if err := send(ctx); err != nil {
			return
		}
		select {
		case <-ended:
			return
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
