package channels

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// RunStreamer is a Sink that can follow the reply text of a run it
// started while the run runs. Adapters use it to stream a reply as edits
// of one message (Telegram's streaming.mode).
type RunStreamer interface {
	// StreamRun calls each with the reply text so far whenever it grows,
	// and returns when the run has ended, or ctx has.
	StreamRun(ctx context.Context, runID string, each func(text string)) error
}

// EditEvery is the least time between two edits of a streamed message:
// about one a second, as OpenClaw does, which stays under the providers'
// edit rate limits.
const EditEvery = time.Second

// Throttle decides when a streamed message is edited: never twice within
// Every, never with the text it shows already, never with no text or a
// text that may still become a silence token (NO_REPLY, which sends
// nothing).
type Throttle struct {
	Every time.Duration
	last  time.Time
	shown string
}

// Due reports whether text should be shown at now; when it should not
// only because the last edit was too recent, wait is how long until it
// may be.
func (t *Throttle) Due(now time.Time, text string) (show bool, wait time.Duration) {
	if text == t.shown || maySilence(text) {
		return false, 0
	}
	if !t.last.IsZero() {
		if since := now.Sub(t.last); since < t.Every {
			return false, t.Every - since
		}
	}
	return true, 0
}

// Shown records that text was shown at now.
func (t *Throttle) Shown(now time.Time, text string) { t.last, t.shown = now, text }

// FollowRun calls show with the run's reply text so far as it grows,
// throttled by Throttle{Every: every}, until the run ends (as sink's
// RunStreamer tells), ctx ends or TypingMax passes. A sink that cannot
// stream shows nothing. A failed show ends the following: the final
// reply is still delivered by the outbox. The caller owns the goroutine
// FollowRun runs in.
func FollowRun(ctx context.Context, sink Sink, runID string, every time.Duration, show func(context.Context, string) error) {
	s, ok := sink.(RunStreamer)
	if !ok || runID == "" {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, TypingMax)
	defer cancel()
	var (
		mu     sync.Mutex
		latest string
	)
	grew := make(chan struct{}, 1)
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		_ = s.StreamRun(ctx, runID, func(text string) {
			mu.Lock()
			latest = text
			mu.Unlock()
			select {
			case grew <- struct{}{}:
			default:
			}
		})
	}()
	defer func() { cancel(); <-ended }()
	th := Throttle{Every: every}
	var later *time.Timer
	var due <-chan time.Time
	defer func() {
		if later != nil {
			later.Stop()
		}
	}()
	for {
		select {
		case <-ended:
			return
		case <-ctx.Done():
			return
		case <-grew:
		case <-due:
			due = nil
		}
		mu.Lock()
		text := latest
		mu.Unlock()
		now := time.Now()
		ok, wait := th.Due(now, text)
		if ok {
			if err := show(ctx, text); err != nil {
				return
			}
			th.Shown(now, text)
			continue
		}
		if wait > 0 && due == nil {
			if later == nil {
				later = time.NewTimer(wait)
			} else {
				later.Reset(wait)
			}
			due = later.C
		}
	}
}

// maySilence reports a reply text so far that is empty or may still grow
// into a silence token.
func maySilence(text string) bool {
	t := strings.TrimSpace(text)
	if t == "" {
		return true
	}
	for _, tok := range []string{domain.ReplySkip, domain.AnnounceSkip, domain.NoReply} {
		if strings.HasPrefix(tok, t) {
			return true
		}
	}
	return false
}
