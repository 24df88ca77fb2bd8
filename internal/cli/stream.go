package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-go/switchboard/internal/client"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// streamMode is chat's --stream: auto prints the reply as it arrives when
// stdout is a terminal and --json is off; on and off force it.
type streamMode string

func (m *streamMode) String() string { return string(*m) }

func (m *streamMode) Set(s string) error {
	switch s {
	case "auto", "on", "off":
		*m = streamMode(s)
		return nil
	}
	return fmt.Errorf("want auto, on or off (got %q)", s)
}

// streams reports whether chat prints the reply as it arrives. Never with
// --json (one JSON document) or --wait 0 (only the run id is printed).
func (m streamMode) streams(e *env, waits bool) bool {
	if e.json || !waits {
		return false
	}
	switch m {
	case "on":
		return true
	case "off":
		return false
	}
	return isTerminal(e.stdout)
}

// replyPrinter writes a reply's text as it grows. Each update is the text
// so far of the current model step; text that does not extend what was
// printed starts a new step on a new line.
type replyPrinter struct {
	w       io.Writer
	mu      sync.Mutex
	printed string
	any     bool
	// settle, when set, lets the follower print what is still on its way
	// once the run has ended (before finish).
	settle func()
}

func (p *replyPrinter) text(so string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !strings.HasPrefix(so, p.printed) {
		_, _ = io.WriteString(p.w, "\n")
		p.printed = ""
	}
	if len(so) > len(p.printed) {
		_, _ = io.WriteString(p.w, so[len(p.printed):])
		p.printed, p.any = so, true
	}
}

// finish ends the streamed output: a newline when the whole reply was
// printed, else the reply (the stored answer is the truth). It reports
// whether anything had been streamed.
func (p *replyPrinter) finish(reply string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.any {
		return false
	}
	if p.printed == reply {
		_, _ = io.WriteString(p.w, "\n")
	} else {
		_, _ = fmt.Fprintf(p.w, "\n%s\n", reply)
	}
	return true
}

// breakLine ends a partly printed reply's line (before an error).
func (p *replyPrinter) breakLine() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.any {
		_, _ = io.WriteString(p.w, "\n")
	}
}

// follower feeds a replyPrinter from the run's deltas until stopped. It
// is armed before the chat call (in-process, so no delta is missed) and
// pointed at the run once its id is known.
type follower struct {
	runID  chan runRef
	cancel context.CancelFunc
	done   chan struct{}
}

// follow starts the follower of the service: the engine's events
// in-process, the gateway's WebSocket (client.Follow) through a gateway.
func follow(ctx context.Context, s *service, p *replyPrinter) *follower {
	ctx, cancel := context.WithCancel(ctx)
	f := &follower{runID: make(chan runRef, 1), cancel: cancel, done: make(chan struct{})}
	switch {
	case s.eng != nil:
		events, unsubscribe := s.eng.Subscribe(4096)
		go func() {
			defer close(f.done)
			defer unsubscribe()
			var id string
			select {
			case r := <-f.runID:
				id = r.id
			case <-ctx.Done():
				return
			}
			for {
				select {
				case <-ctx.Done():
					return
				case ev, ok := <-events:
					if !ok {
						return
					}
					if ev.Kind == domain.EventDelta && ev.Delta != nil && ev.Delta.RunID == id && ev.Delta.Delta.Text != "" {
						p.text(ev.Delta.Accumulated)
					}
					if ev.Kind == domain.EventRunEnd && ev.Run != nil && ev.Run.ID == id {
						return // every delta of the run came before its end
					}
				}
			}
		}()
	default:
		c, ok := s.Service.(*client.Client)
		if !ok {
			close(f.done)
			return f
		}
		go func() {
			defer close(f.done)
			var r runRef
			select {
			case r = <-f.runID:
			case <-ctx.Done():
				return
			}
			// Best effort: a gateway that cannot be followed still
			// gives the reply at the end.
			_ = c.Follow(ctx, r.key, r.id, p.text)
		}()
	}
	return f
}

type runRef struct{ key, id string }

// start points the follower at a run.
func (f *follower) start(key, runID string) { f.runID <- runRef{key, runID} }

// catchUp is how long a follower may take, once the run has ended, to
// print the pieces still on their way (through a gateway they travel
// apart from the HTTP answer that said the run ended).
const catchUp = 2 * time.Second

// settle waits until the follower has seen the run's end (or catchUp
// passed), then stops it.
func (f *follower) settle() {
	t := time.NewTimer(catchUp)
	defer t.Stop()
	select {
	case <-f.done:
	case <-t.C:
	}
	f.stop()
}

// stop ends the follower and waits for it.
func (f *follower) stop() {
	f.cancel()
	<-f.done
}
