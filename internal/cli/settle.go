package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/engine"
)

// progress returns where to show progress: stderr when it is a terminal,
// else nil (scripts and tests get clean output).
func (e *env) progress() io.Writer {
	if isTerminal(e.stderr) {
		return e.stderr
	}
	return nil
}

// isTerminal reports whether w is a character device (a TTY).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// settle waits until eng is idle, printing what finishes on progress (when
// not nil). A command's engine carries out only its own work (the runs it
// submitted, their follow-ups, and the runs queued ahead of them on their
// sessions), so idle means that work is done: runs left queued on other
// sessions wait for the gateway, not for this command.
func settle(ctx context.Context, eng *engine.Engine, progress io.Writer) error {
	if progress == nil {
		return eng.Idle(ctx)
	}
	events, stop := eng.Subscribe(256)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		header := false
		for ev := range events {
			line := progressLine(ev)
			if line == "" {
				continue
			}
			if !header {
				fmt.Fprintln(progress, "waiting for follow-up work to settle (Ctrl-C stops; --detach skips this)…")
				header = true
			}
			fmt.Fprintln(progress, "  "+line)
		}
	}()
	err := eng.Idle(ctx)
	stop()
	wg.Wait()
	return err
}

// progressLine describes an event for the progress display ("" to skip),
// with canonical keys.
func progressLine(ev domain.Event) string {
	switch {
	case ev.Kind == domain.EventRunStart && ev.Run != nil:
		return fmt.Sprintf("⋯ %s run on %s started", ev.Run.Kind, ev.Run.SessionKey)
	case ev.Kind == domain.EventRunEnd && ev.Run != nil:
		return fmt.Sprintf("✓ %s run on %s: %s", ev.Run.Kind, ev.Run.SessionKey, ev.Run.Status)
	case ev.Kind == domain.EventOutbox && ev.Outbox != nil:
		return fmt.Sprintf("✓ %s for %s: %s", ev.Outbox.Kind, ev.Outbox.SessionKey, ev.Outbox.Status)
	}
	return ""
}
