package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// Process runs the command line as the process and returns its exit code:
// it owns the process's signals for the command's lifetime. SIGINT and
// SIGTERM stop the command (the signal is the context's cause, which the
// gateway logs as its stop reason); SIGHUP makes a running gateway reload
// its configuration and stops any other command, as a hangup does.
// cmd/switchboard only wires it to os.Args and the standard streams.
func Process(args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	hup := &hangup{}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		routeSignals(sigs, done, cancel, hup)
	}()
	code := mainWith(ctx, hup, args, getenv, stdin, stdout, stderr)
	close(done)
	wg.Wait()
	return code
}

// stopSignal is the cancellation cause of a command stopped by a signal.
type stopSignal struct{ sig os.Signal }

func (s stopSignal) Error() string { return fmt.Sprintf("signal %s", s.sig) }

// routeSignals turns signals into a stop (cancel) or a reload (hup) until
// done is closed.
func routeSignals(sigs <-chan os.Signal, done <-chan struct{}, cancel context.CancelCauseFunc, hup *hangup) {
	for {
		select {
		case <-done:
			return
		case sig := <-sigs:
			if sig == syscall.SIGHUP && hup.notify() {
				continue
			}
			cancel(stopSignal{sig})
		}
	}
}

// hangup delivers SIGHUP to the command that listens for it (the
// gateway's config reload). With no listener a hangup stops the command.
type hangup struct {
	mu sync.Mutex
	ch chan struct{}
}

// listen returns the channel reloads arrive on and a func that stops
// listening. A nil hangup (Main, tests) never delivers.
func (h *hangup) listen() (<-chan struct{}, func()) {
	if h == nil {
		return nil, func() {}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	ch := make(chan struct{}, 1)
	h.ch = ch
	return ch, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.ch == ch {
			h.ch = nil
		}
	}
}

// notify passes a hangup to the listener (coalescing one pending) and
// reports whether there is one.
func (h *hangup) notify() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ch == nil {
		return false
	}
	select {
	case h.ch <- struct{}{}:
	default: // a reload is already pending; it reads the newest file
	}
	return true
}
