// Package telegram is the Telegram channel: a channels.Adapter speaking
// the Bot API through github.com/go-telegram/bot for its types and sends,
// with its own getUpdates loop and webhook handler so that an update is
// acknowledged only after its turn is durable.
package telegram

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/switchboard-go/switchboard/internal/attachments"
	"github.com/switchboard-go/switchboard/internal/channels"
	"github.com/switchboard-go/switchboard/internal/outbox"
)

// Channel is the channel name.
const Channel = "telegram"

// DefaultAPIRoot is Telegram's Bot API.
const DefaultAPIRoot = "https://api.telegram.org"

// Options build an Adapter.
type Options struct {
	// Raw is the `channels.telegram` block.
	Raw    map[string]any
	Getenv func(string) string
	// StateDir holds the update offsets (<stateDir>/channels/telegram).
	StateDir string
	Logger   *slog.Logger
	// HTTPClient carries Bot API calls (default: one without a timeout;
	// each call has its own deadline).
	HTTPClient *http.Client
	// PollTimeout is getUpdates' long-poll timeout (default 25 s).
	PollTimeout time.Duration
	// EditEvery is the least time between two edits of a streamed reply
	// (default channels.EditEvery).
	EditEvery time.Duration
	// Paired reports a direct-chat sender approved by pairing; Pair asks
	// for a pairing code for an unknown one (nil: pairing answers nothing).
	Paired func(account, sender string) bool
	Pair   func(ctx context.Context, account, sender, name string) (code string, fresh bool, err error)
	// MediaLimits bound the photos and documents a message brings in
	// (tools.sessions_spawn.attachments; zero fields: the defaults).
	MediaLimits attachments.Limits
}

// Adapter is the Telegram channel.
type Adapter struct {
	o        Options
	log      *slog.Logger
	accounts []*acct

	mu     sync.Mutex
	cancel context.CancelFunc
	// base is Start's context, which Stop ends: the typing actions, which
	// outlive the handling of their update, run under it.
	base context.Context
	wg   sync.WaitGroup
	// streams are the messages replies stream into (streaming.mode);
	// editEvery is the least time between two edits of one.
	streams   streams
	editEvery time.Duration
}

// acct is one bot account at run time.
type acct struct {
	account
	bot     *bot.Bot
	http    *http.Client
	apiRoot string
	offset  offsetFile

	mu        sync.Mutex // serializes update handling (order per account)
	meMu      sync.Mutex
	me        botInfo
	lastError string
	running   atomic.Bool
	connected atomic.Bool
	webhook   *http.Server

	count channels.Counters
}

// New builds the adapter of a `channels.telegram` block; it reaches no
// network until Start.
func New(o Options) (*Adapter, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Getenv == nil {
		o.Getenv = func(string) string { return "" }
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{}
	}
	if o.PollTimeout <= 0 {
		o.PollTimeout = 25 * time.Second
	}
	root, err := parseConfig(o.Raw)
	if err != nil {
		return nil, err
	}
	a := &Adapter{o: o, log: o.Logger.With("channel", Channel), editEvery: o.EditEvery}
	if a.editEvery <= 0 {
		a.editEvery = channels.EditEvery
	}
	for _, k := range NoEffectKeys("channels.telegram", o.Raw) {
		a.log.Warn("config key accepted without effect (docs/channels.md)", "key", k)
	}
	for _, ac := range accounts(root, o.Getenv) {
		x := &acct{account: ac, http: o.HTTPClient}
		x.apiRoot = strings.TrimRight(orDefault(ac.cfg.APIRoot, DefaultAPIRoot), "/")
		if o.StateDir != "" {
			x.offset = offsetFile{path: filepath.Join(o.StateDir, "channels", Channel, ac.id+".offset")}
		}
		if ac.token != "" {
			b, err := bot.New(ac.token, bot.WithSkipGetMe(), bot.WithServerURL(x.apiRoot),
				bot.WithHTTPClient(o.PollTimeout+10*time.Second, jsonEmptyBody{c: o.HTTPClient}))
			if err != nil {
				return nil, fmt.Errorf("channels.telegram account %s: %w", ac.id, err)
			}
			x.bot = b
		} else {
			x.lastError = ac.tokenErr
		}
		a.accounts = append(a.accounts, x)
	}
	return a, nil
}

// Channel is "telegram".
func (a *Adapter) Channel() string { return Channel }

// enabled reports whether an account runs.
func (x *acct) enabled() bool { return x.cfg.Enabled == nil || *x.cfg.Enabled }

// Start starts receiving for every enabled account with a token.
func (a *Adapter) Start(ctx context.Context, sink channels.Sink) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cancel != nil {
		return errors.New("telegram: already started")
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	a.cancel, a.base = cancel, ctx
	for _, x := range a.accounts {
		if !x.enabled() {
			continue
		}
		if x.bot == nil {
			a.log.Error("telegram account not started", "account", x.id, "err", x.lastError)
			continue
		}
		x.count.Started(time.Now())
		if x.cfg.WebhookURL != "" {
			if err := a.startWebhook(ctx, x, sink); err != nil {
				x.setError(err)
				a.log.Error("telegram webhook not started", "account", x.id, "err", err)
			}
			continue
		}
		a.wg.Add(1)
		go func() {
			defer a.wg.Done()
			a.poll(ctx, x, sink)
		}()
	}
	return nil
}

// Stop ends receiving and waits for the loops.
func (a *Adapter) Stop(ctx context.Context) error {
	a.mu.Lock()
	cancel := a.cancel
	a.mu.Unlock()
	if cancel == nil {
		return nil
	}
	cancel()
	for _, x := range a.accounts {
		if x.webhook != nil {
			_ = x.webhook.Shutdown(ctx)
		}
	}
	done := make(chan struct{})
	go func() { a.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("telegram: stop: %w", ctx.Err())
	}
}

func (x *acct) setError(err error) {
	x.meMu.Lock()
	defer x.meMu.Unlock()
	if err == nil {
		x.lastError = ""
		return
	}
	x.lastError = err.Error()
}

func (x *acct) botInfo() botInfo {
	x.meMu.Lock()
	defer x.meMu.Unlock()
	return x.me
}

// identify calls getMe until it answers (a refused token stops trying).
func (a *Adapter) identify(ctx context.Context, x *acct) bool {
	for attempt := 1; ; attempt++ {
		cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		u, err := x.bot.GetMe(cctx)
		cancel()
		if err == nil {
			x.meMu.Lock()
			x.me = botInfo{ID: u.ID, Username: u.Username}
			x.lastError = ""
			x.meMu.Unlock()
			x.connected.Store(true)
			a.log.Info("telegram bot identified", "account", x.id, "username", u.Username)
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		x.connected.Store(false)
		x.setError(fmt.Errorf("getMe: %w", err))
		if errors.Is(err, bot.ErrorUnauthorized) || errors.Is(err, bot.ErrorNotFound) {
			a.log.Error("telegram refused the bot token", "account", x.id, "err", err)
			return false
		}
		a.log.Warn("telegram getMe failed, retrying", "account", x.id, "err", err)
		if !sleep(ctx, outbox.Backoff(attempt)) {
			return false
		}
	}
}

// poll is the getUpdates loop of one account.
func (a *Adapter) poll(ctx context.Context, x *acct, sink channels.Sink) {
	if !a.identify(ctx, x) {
		return
	}
	x.running.Store(true)
	defer x.running.Store(false)
	// getUpdates is refused while a webhook is set.
	if _, err := x.bot.DeleteWebhook(ctx, &bot.DeleteWebhookParams{}); err != nil && ctx.Err() == nil {
		a.log.Debug("telegram deleteWebhook", "account", x.id, "err", err)
	}
	next, err := x.offset.load()
	if err != nil {
		a.log.Warn("telegram offset unreadable, starting from Telegram's", "account", x.id, "err", err)
	}
	fails := 0
	for ctx.Err() == nil {
		ups, err := a.getUpdates(ctx, x, next)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			fails++
			x.connected.Store(false)
			x.setError(err)
			a.log.Warn("telegram getUpdates failed", "account", x.id, "err", err)
			if !sleep(ctx, outbox.Backoff(fails)) {
				return
			}
			continue
		}
		fails = 0
		x.connected.Store(true)
		for _, u := range ups {
			if u.ID < next {
				continue // handled before (a repeat)
			}
			if err := a.handle(ctx, x, sink, u); err != nil {
				if ctx.Err() != nil {
					return
				}
				// Not durable: offer it again (from this update on).
				a.log.Warn("telegram update not handled, retrying", "account", x.id, "update", u.ID, "err", err)
				fails++
				if !sleep(ctx, outbox.Backoff(fails)) {
					return
				}
				break
			}
			next = u.ID + 1
			if err := x.offset.store(next); err != nil {
				a.log.Error("telegram offset not saved", "account", x.id, "err", err)
			}
		}
	}
}

// getUpdates long-polls for updates from offset on.
func (a *Adapter) getUpdates(ctx context.Context, x *acct, offset int64) ([]models.Update, error) {
	body := map[string]any{"timeout": int(a.o.PollTimeout / time.Second), "allowed_updates": []string{"message"}}
	if offset > 0 {
		body["offset"] = offset
	}
	raw, err := x.call(ctx, "getUpdates", body, a.o.PollTimeout+10*time.Second)
	if err != nil {
		return nil, err
	}
	return decodeUpdates(raw)
}

// handle turns one update into a turn (or a drop, or a pairing answer).
// nil means it may be acknowledged.
func (a *Adapter) handle(ctx context.Context, x *acct, sink channels.Sink, u models.Update) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	me := x.botInfo()
	in, ok := toInbound(x.id, me, u)
	if !ok {
		return nil
	}
	v, why := access(&x.cfg, &in, func(sender string) bool {
		return a.o.Paired != nil && a.o.Paired(x.id, sender)
	})
	switch v {
	case drop:
		a.log.Debug("telegram message dropped", "account", x.id, "chat", in.ChatID, "sender", in.SenderID, "reason", why)
		return nil
	case pair:
		return a.pairing(ctx, x, in)
	}
	in.Text = stripMention(me, in.Text)
	if in.Text == "" && !hasMedia(u.Message) {
		return nil
	}
	oversize, err := a.fetchMedia(ctx, x, u.Message, &in)
	if err != nil {
		return err
	}
	out, err := sink.Handle(ctx, in)
	if err != nil {
		return err
	}
	if !out.Duplicate {
		x.count.Received(time.Now())
		if oversize != "" {
			// OpenClaw's warning; the turn's text names the file too.
			if err := a.sendText(ctx, x, in.To, oversize, false); err != nil {
				a.log.Warn("telegram oversize warning not sent", "account", x.id, "err", err)
			}
		}
		if out.RunID != "" {
			a.typing(x, sink, in.To, out.RunID)
			if streamModeOf(&x.cfg) != "off" {
				a.streamReply(x, sink, in.To, out.RunID)
			}
		}
	}
	return nil
}

// typing shows the typing action in the chat while the turn's run runs.
func (a *Adapter) typing(x *acct, sink channels.Sink, to, runID string) {
	chatID, thread, err := parseTo(to)
	a.mu.Lock()
	base := a.base
	a.mu.Unlock()
	if err != nil || base == nil || base.Err() != nil {
		return
	}
	a.wg.Go(func() {
		channels.KeepTyping(base, sink, runID, channels.TypingEvery, func(ctx context.Context) error {
			cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			_, err := x.bot.SendChatAction(cctx, &bot.SendChatActionParams{ChatID: chatID, MessageThreadID: thread, Action: models.ChatActionTyping})
			if err != nil && ctx.Err() == nil {
				a.log.Debug("telegram typing action", "account", x.id, "err", err)
			}
			return err
		})
	})
}

// pairing answers an unknown direct sender with a pairing code.
func (a *Adapter) pairing(ctx context.Context, x *acct, in channels.Inbound) error {
	if a.o.Pair == nil {
		return nil
	}
	code, fresh, err := a.o.Pair(ctx, x.id, in.SenderID, in.SenderName)
	if err != nil {
		a.log.Info("telegram pairing refused", "account", x.id, "sender", in.SenderID, "err", err)
		return nil
	}
	if !fresh {
		return nil // answered already; no reminder per message
	}
	text := "switchboard: access not configured.\n\nYour Telegram user id: " + in.SenderID +
		"\n\nPairing code: " + code + "\n\nAsk the bot owner to approve with:\nswitchboard pairing approve telegram " + code
	if err := a.sendText(ctx, x, in.To, text, false); err != nil {
		a.log.Warn("telegram pairing code not sent", "account", x.id, "err", err)
	}
	return nil
}

// Send delivers an outbound message (Markdown) to its chat, split at
// Telegram's limit, honouring retry_after.
func (a *Adapter) Send(ctx context.Context, msg channels.Outbound) error {
	x := a.account(msg.AccountID)
	if x == nil {
		return outbox.Permanent(fmt.Errorf("telegram: no account %q", msg.AccountID))
	}
	if x.bot == nil {
		return fmt.Errorf("telegram account %s: %s", x.id, x.lastError)
	}
	if len(msg.Files) > 0 {
		return x.count.Sent(a.sendFiles(ctx, x, msg), time.Now())
	}
	if done, err := a.finishStream(ctx, x, msg); done {
		return x.count.Sent(err, time.Now())
	}
	return x.count.Sent(a.sendText(ctx, x, msg.To, msg.Text, true), time.Now())
}

// account returns the account with id (the default when id is empty or
// "default" and there is one account).
func (a *Adapter) account(id string) *acct {
	id = strings.ToLower(strings.TrimSpace(id))
	for _, x := range a.accounts {
		if x.id == id {
			return x
		}
	}
	if id == "" || id == channels.DefaultAccountID {
		for _, x := range a.accounts {
			if x.enabled() {
				return x
			}
		}
	}
	return nil
}

// maxInlineWait is the longest retry_after a send waits out itself (the
// rest of a split message must not be resent); longer ones go back to the
// outbox.
const maxInlineWait = 30 * time.Second

// sendText sends text to a recipient, piece by piece.
func (a *Adapter) sendText(ctx context.Context, x *acct, to, text string, markdown bool) error {
	chatID, thread, err := parseTo(to)
	if err != nil {
		return outbox.Permanent(err)
	}
	limit := x.cfg.TextChunkLimit
	for _, piece := range split(text, limit) {
		p := &bot.SendMessageParams{ChatID: chatID, MessageThreadID: thread, Text: piece}
		if markdown {
			p.Text, p.ParseMode = toHTML(piece), models.ParseModeHTML
		}
		if x.cfg.LinkPreview != nil && !*x.cfg.LinkPreview {
			off := true
			p.LinkPreviewOptions = &models.LinkPreviewOptions{IsDisabled: &off}
		}
		if err := a.sendPiece(ctx, x, p, piece); err != nil {
			return err
		}
	}
	return nil
}

// sendPiece sends one message, waiting out short rate limits; HTML that
// does not parse goes again as the plain text.
func (a *Adapter) sendPiece(ctx context.Context, x *acct, p *bot.SendMessageParams, plain string) error {
	return a.try(ctx, x, "sendMessage", 30*time.Second, func(ctx context.Context) error {
		_, err := x.bot.SendMessage(ctx, p)
		return err
	}, func() bool {
		if p.ParseMode == "" {
			return false
		}
		p.Text, p.ParseMode = plain, ""
		return true
	})
}

// try makes one Bot API send, each attempt within timeout, waiting out
// short rate limits. When a 400 says the formatting did not parse,
// asPlain (if set) switches the send to plain text and reports whether it
// did, and the send goes again.
func (a *Adapter) try(ctx context.Context, x *acct, method string, timeout time.Duration, send func(context.Context) error, asPlain func() bool) error {
	for attempt := 0; ; attempt++ {
		cctx, cancel := context.WithTimeout(ctx, timeout)
		err := send(cctx)
		cancel()
		var tmr *bot.TooManyRequestsError
		switch {
		case err == nil:
			x.connected.Store(true)
			return nil
		case errors.As(err, &tmr):
			wait := time.Duration(max(tmr.RetryAfter, 1)) * time.Second
			x.count.Retry()
			if wait > maxInlineWait || attempt >= 3 {
				return &channels.RetryAfterError{After: wait, Err: err}
			}
			a.log.Info("telegram rate limit, waiting", "account", x.id, "retryAfter", wait)
			if !sleep(ctx, wait) {
				return ctx.Err()
			}
		case errors.Is(err, bot.ErrorBadRequest) && asPlain != nil && strings.Contains(strings.ToLower(err.Error()), "parse") && asPlain():
		case errors.Is(err, bot.ErrorBadRequest), errors.Is(err, bot.ErrorForbidden),
			errors.Is(err, bot.ErrorUnauthorized), errors.Is(err, bot.ErrorNotFound):
			return outbox.Permanent(fmt.Errorf("telegram %s: %w", method, err))
		default:
			x.connected.Store(false)
			return fmt.Errorf("telegram %s: %w", method, err)
		}
	}
}

// parseTo reads a recipient: "telegram:<chatId>", "<chatId>",
// "…:topic:<threadId>", or "@channelusername".
func parseTo(to string) (any, int, error) {
	s := strings.TrimSpace(to)
	s = strings.TrimPrefix(strings.TrimPrefix(s, "telegram:"), "tg:")
	s = strings.TrimPrefix(s, "group:")
	chat, topic, hasTopic := strings.Cut(s, ":topic:")
	thread := 0
	if hasTopic {
		n, err := strconv.Atoi(topic)
		if err != nil || n <= 0 {
			return nil, 0, fmt.Errorf("telegram: bad topic in recipient %q", to)
		}
		thread = n
	}
	if strings.HasPrefix(chat, "@") && len(chat) > 1 {
		return chat, thread, nil
	}
	id, err := strconv.ParseInt(chat, 10, 64)
	if err != nil || id == 0 {
		return nil, 0, fmt.Errorf("telegram: recipient %q is no chat id (want telegram:<chatId>)", to)
	}
	return id, thread, nil
}

// Status reports each account.
func (a *Adapter) Status() []channels.AccountStatus {
	out := make([]channels.AccountStatus, 0, len(a.accounts))
	for _, x := range a.accounts {
		x.meMu.Lock()
		me, lastErr := x.me, x.lastError
		x.meMu.Unlock()
		mode := "polling"
		if x.cfg.WebhookURL != "" {
			mode = "webhook"
		}
		st := channels.AccountStatus{AccountID: x.id, Name: x.cfg.Name, Enabled: x.enabled(),
			Configured: x.token != "", Running: x.running.Load(), Connected: x.connected.Load(), Mode: mode,
			BotUsername: me.Username, LastError: lastErr}
		x.count.Fill(&st)
		out = append(out, st)
	}
	return out
}

// sleep waits d or until ctx ends; it reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

var _ channels.Adapter = (*Adapter)(nil)
