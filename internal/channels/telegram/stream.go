package telegram

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/switchboard-go/switchboard/internal/channels"
	"github.com/switchboard-go/switchboard/internal/outbox"
)

// streamModeOf is an account's streaming mode: `streaming.mode`, else the
// legacy `streamMode`, else "partial" (OpenClaw's default). OpenClaw's
// "partial", "block" and "progress" all stream here as "partial" does.
func streamModeOf(c *Config) string {
	m := ""
	if c.Streaming != nil {
		m = c.Streaming.Mode
	}
	if m == "" {
		m = c.StreamMode
	}
	if m == "" {
		return "partial"
	}
	return m
}

// streamKeep is how long a streamed message waits for its run's final
// reply to edit it.
const streamKeep = time.Hour

// stream is the message one run's reply is streamed into. mu serializes
// its edits with the final delivery, so the final text is the last one.
type stream struct {
	mu      sync.Mutex
	to      string
	chatID  any
	thread  int
	msgID   int    // 0 until the first part is sent
	shown   string // the text the message shows
	final   bool   // the final reply took the message over
	started time.Time
}

// streams are the streamed messages of one adapter, by run id.
type streams struct {
	mu   sync.Mutex
	runs map[string]*stream
}

// open registers the stream of a run (dropping ones older than
// streamKeep whose final reply never came).
func (s *streams) open(runID string, st *stream) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.runs == nil {
		s.runs = map[string]*stream{}
	}
	for id, o := range s.runs {
		if time.Since(o.started) > streamKeep {
			delete(s.runs, id)
		}
	}
	s.runs[runID] = st
}

// take removes and returns the stream of a run to recipient to.
func (s *streams) take(runID, to string) *stream {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.runs[runID]
	if st == nil || st.to != to {
		return nil
	}
	delete(s.runs, runID)
	return st
}

// streamReply follows a run's reply in its chat: the first part of the
// text so far is sent as one message, then edited as it grows.
func (a *Adapter) streamReply(x *acct, sink channels.Sink, to, runID string) {
	chatID, thread, err := parseTo(to)
	a.mu.Lock()
	base := a.base
	a.mu.Unlock()
	if err != nil || base == nil || base.Err() != nil {
		return
	}
	st := &stream{to: to, chatID: chatID, thread: thread, started: time.Now()}
	a.streams.open(runID, st)
	a.wg.Go(func() {
		channels.FollowRun(base, sink, runID, a.editEvery, func(ctx context.Context, text string) error {
			return a.showPartial(ctx, x, st, text)
		})
	})
}

// showPartial shows text (its first part) in the streamed message.
func (a *Adapter) showPartial(ctx context.Context, x *acct, st *stream, text string) error {
	part := split(strings.TrimSpace(text), x.cfg.TextChunkLimit)
	if len(part) == 0 {
		return nil
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.final {
		return errors.New("the final reply took over")
	}
	if part[0] == st.shown {
		return nil
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if st.msgID == 0 {
		m, err := x.bot.SendMessage(cctx, &bot.SendMessageParams{ChatID: st.chatID, MessageThreadID: st.thread, Text: part[0]})
		if err != nil {
			a.log.Debug("telegram streamed message not sent", "account", x.id, "err", err)
			return err
		}
		st.msgID, st.shown = m.ID, part[0]
		return nil
	}
	if _, err := x.bot.EditMessageText(cctx, &bot.EditMessageTextParams{ChatID: st.chatID, MessageID: st.msgID, Text: part[0]}); err != nil && !notModified(err) {
		a.log.Debug("telegram streamed message not edited", "account", x.id, "err", err)
		return err
	}
	st.shown = part[0]
	return nil
}

// finishStream delivers a run's final reply into its streamed message:
// the first part edits it, the rest follow as new messages. handled is
// false when there is no streamed message to edit (send as usual).
func (a *Adapter) finishStream(ctx context.Context, x *acct, msg channels.Outbound) (handled bool, err error) {
	if msg.RunID == "" {
		return false, nil
	}
	st := a.streams.take(msg.RunID, msg.To)
	if st == nil {
		return false, nil
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	st.final = true
	if st.msgID == 0 {
		return false, nil
	}
	parts := split(msg.Text, x.cfg.TextChunkLimit)
	if len(parts) == 0 {
		return true, nil
	}
	if err := a.editFinal(ctx, x, st, parts[0]); err != nil {
		if !errors.Is(err, outbox.ErrPermanent) {
			a.keep(msg.RunID, st)
			return true, err
		}
		// The message cannot be edited (deleted, too old): send anew.
		a.log.Info("telegram streamed message not editable, sending the reply", "account", x.id, "err", err)
		return false, nil
	}
	for _, p := range parts[1:] {
		if err := a.sendText(ctx, x, msg.To, p, true); err != nil {
			if !errors.Is(err, outbox.ErrPermanent) {
				a.keep(msg.RunID, st)
			}
			return true, err
		}
	}
	return true, nil
}

// keep puts a stream back for the outbox's next attempt at its final
// reply, which edits the message again (an edit to the same text is
// Telegram's "not modified", taken as done).
func (a *Adapter) keep(runID string, st *stream) {
	st.final = false
	a.streams.open(runID, st)
}

// editFinal edits the streamed message to the final text of its first
// part (Markdown, as HTML; the text as it is when the HTML is refused).
func (a *Adapter) editFinal(ctx context.Context, x *acct, st *stream, piece string) error {
	p := &bot.EditMessageTextParams{ChatID: st.chatID, MessageID: st.msgID, Text: toHTML(piece), ParseMode: models.ParseModeHTML}
	if x.cfg.LinkPreview != nil && !*x.cfg.LinkPreview {
		off := true
		p.LinkPreviewOptions = &models.LinkPreviewOptions{IsDisabled: &off}
	}
	for {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		_, err := x.bot.EditMessageText(cctx, p)
		cancel()
		var tmr *bot.TooManyRequestsError
		switch {
		case err == nil, notModified(err):
			return nil
		case errors.As(err, &tmr):
			x.count.Retry()
			return &channels.RetryAfterError{After: time.Duration(max(tmr.RetryAfter, 1)) * time.Second, Err: err}
		case errors.Is(err, bot.ErrorBadRequest) && p.ParseMode != "" && strings.Contains(strings.ToLower(err.Error()), "parse"):
			p.Text, p.ParseMode = piece, ""
		case errors.Is(err, bot.ErrorBadRequest), errors.Is(err, bot.ErrorForbidden), errors.Is(err, bot.ErrorNotFound):
			return outbox.Permanent(fmt.Errorf("telegram editMessageText: %w", err))
		default:
			return fmt.Errorf("telegram editMessageText: %w", err)
		}
	}
}

// notModified reports Telegram's answer to an edit that changes nothing.
func notModified(err error) bool {
	return err != nil && strings.Contains(err.Error(), "message is not modified")
}
