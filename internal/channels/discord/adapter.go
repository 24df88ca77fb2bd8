package discord

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	disgogw "github.com/disgoorg/disgo/gateway"

	"github.com/switchboard-go/switchboard/internal/attachments"
	"github.com/switchboard-go/switchboard/internal/channels"
	"github.com/switchboard-go/switchboard/internal/outbox"
)

// ChannelName is the channel's name in keys, config and the outbox.
const ChannelName = "discord"

// Options configures an Adapter.
type Options struct {
	// Block is the `channels.discord` config block (already checked
	// against OpenClaw's schema).
	Block  map[string]any
	Getenv func(string) string
	Logger *slog.Logger
	// HTTPClient carries REST calls and the gateway's dial (nil: a client
	// with a 30 s timeout).
	HTTPClient *http.Client
	// Now is the clock of the status times (nil: time.Now).
	Now func() time.Time
	// Backoff overrides the gateway's reconnect backoff (tests).
	Backoff func(n int) time.Duration
	// Paired reports a direct-message sender approved by pairing; Pair
	// asks for a pairing code for an unknown one (nil: pairing answers
	// nothing).
	Paired func(account, sender string) bool
	Pair   func(ctx context.Context, account, sender, name string) (code string, fresh bool, err error)
	// MediaLimits bound the files a message brings in
	// (tools.sessions_spawn.attachments; zero fields: the defaults).
	MediaLimits attachments.Limits
}

// Adapter is the Discord channel: one gateway session and one REST
// sender per enabled account.
type Adapter struct {
	log      *slog.Logger
	now      func() time.Time
	accounts []*account

	mu     sync.Mutex
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

var _ channels.Adapter = (*Adapter)(nil)

// New builds the adapter from the config block; it warns (once, in the
// log) about every accepted key that has no effect.
func New(opts Options) (*Adapter, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Getenv == nil {
		opts.Getenv = func(string) string { return "" }
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	cfg, err := ParseConfig(opts.Block)
	if err != nil {
		return nil, err
	}
	for _, k := range NoEffectKeys(opts.Block) {
		opts.Logger.Warn("config: accepted key has no effect yet", "key", k)
	}
	a := &Adapter{log: opts.Logger, now: opts.Now}
	for _, id := range cfg.AccountIDs() {
		ac, err := cfg.AccountConfig(id)
		acc := &account{id: id, conf: ac, log: opts.Logger.With("channel", ChannelName, "account", id),
			now: opts.Now, bg: &a.wg, paired: opts.Paired, pair: opts.Pair, channels: map[string]channelInfo{}, guilds: map[string]string{}}
		acc.enabled = err == nil && (ac.Enabled == nil || *ac.Enabled)
		if err == nil {
			acc.token, err = ac.ResolveToken(id, opts.Getenv)
		}
		if err != nil {
			acc.setErr(err)
		}
		if acc.token != "" {
			acc.sender = NewSender(acc.token, ac.APIRoot, opts.HTTPClient, acc.log)
			acc.media = newMediaFetcher(opts.MediaLimits, ac.MediaMaxMb, ac.APIRoot, opts.HTTPClient)
			url := ac.GatewayURL
			if url == "" {
				url = DefaultGatewayURL
			}
			acc.gw, err = NewGateway(GatewayConfig{URL: url, Token: acc.token, Intents: ac.intents(),
				Dispatch: acc.dispatch, HTTPClient: opts.HTTPClient, Logger: acc.log, Backoff: opts.Backoff})
			if err != nil {
				return nil, err
			}
		}
		a.accounts = append(a.accounts, acc)
	}
	return a, nil
}

// intents are the gateway intents an account asks for: guilds, guild and
// direct messages, and message content unless turned off; the other
// privileged intents when the config turns them on.
func (a Account) intents() disgogw.Intents {
	i := disgogw.IntentGuilds | disgogw.IntentGuildMessages | disgogw.IntentDirectMessages
	in := a.Intents
	if in == nil || in.MessageContent == nil || *in.MessageContent {
		i |= disgogw.IntentMessageContent
	}
	if in != nil {
		if in.GuildMembers != nil && *in.GuildMembers {
			i |= disgogw.IntentGuildMembers
		}
		if in.Presence != nil && *in.Presence {
			i |= disgogw.IntentGuildPresences
		}
		if in.VoiceStates != nil && *in.VoiceStates {
			i |= disgogw.IntentGuildVoiceStates
		}
	}
	return i
}

// Channel is "discord".
func (a *Adapter) Channel() string { return ChannelName }

// Start connects every enabled account's gateway; messages go to sink.
func (a *Adapter) Start(ctx context.Context, sink channels.Sink) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cancel != nil {
		return errors.New("discord: already started")
	}
	// The gateways outlive Start's ctx: Stop ends them.
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	a.cancel = cancel
	for _, acc := range a.accounts {
		if !acc.enabled || acc.gw == nil {
			continue
		}
		acc.sink = sink
		acc.count.Started(a.now())
		acc.running.Store(true)
		a.wg.Go(func() {
			defer acc.running.Store(false)
			if err := acc.gw.Run(runCtx); err != nil {
				acc.setErr(err)
			}
		})
	}
	return nil
}

// Stop closes the gateways and waits for them, up to ctx's end.
func (a *Adapter) Stop(ctx context.Context) error {
	a.mu.Lock()
	cancel := a.cancel
	a.mu.Unlock()
	if cancel == nil {
		return nil
	}
	cancel()
	done := make(chan struct{})
	go func() {
		a.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		return fmt.Errorf("discord: stop: %w", ctx.Err())
	}
	for _, acc := range a.accounts {
		if acc.sender != nil {
			acc.sender.Close(ctx)
		}
	}
	return nil
}

// SendsFiles marks the adapter as one that sends files (channels.FileSender).
func (a *Adapter) SendsFiles() {}

// Send posts one outbound message with its account's bot. A refused
// target or request fails for good; a long rate limit asks the outbox to
// wait; anything else is retried.
func (a *Adapter) Send(ctx context.Context, msg channels.Outbound) error {
	acc := a.account(msg.AccountID)
	if acc == nil || acc.sender == nil {
		return outbox.Permanent(fmt.Errorf("discord: no usable account %q", msg.AccountID))
	}
	_, err := acc.sender.Send(ctx, msg.To, msg.Text, msg.IdempotencyKey, msg.Files...)
	var ra *RetryAfterError
	switch {
	case err == nil:
	case Permanent(err):
		err = outbox.Permanent(err)
	case errors.As(err, &ra):
		err = &channels.RetryAfterError{After: ra.After, Err: err}
	}
	return acc.count.Sent(err, a.now())
}

// account returns the account named id, else the default one, else the
// first.
func (a *Adapter) account(id string) *account {
	if id == "" {
		id = channels.DefaultAccountID
	}
	for _, acc := range a.accounts {
		if acc.id == id {
			return acc
		}
	}
	for _, acc := range a.accounts {
		if acc.sender != nil {
			return acc
		}
	}
	return nil
}

// Status reports each account.
func (a *Adapter) Status() []channels.AccountStatus {
	out := make([]channels.AccountStatus, 0, len(a.accounts))
	for _, acc := range a.accounts {
		st := channels.AccountStatus{AccountID: acc.id, Enabled: acc.enabled, Configured: acc.token != "",
			Running: acc.running.Load(), Mode: "gateway", LastError: acc.lastErr()}
		acc.count.Fill(&st)
		if acc.gw != nil {
			gs := acc.gw.Status()
			st.Connected = gs.State == StateReady
			if gs.LastError != "" && st.LastError == "" {
				st.LastError = gs.LastError
			}
			st.BotUsername = acc.botName()
		}
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].AccountID < out[j].AccountID })
	return out
}

// account is one bot: its config, its gateway and sender, the channel
// names and kinds the gateway told it, and its counters.
type account struct {
	id      string
	conf    Account
	token   string
	enabled bool
	log     *slog.Logger
	now     func() time.Time
	sender  *Sender
	media   *mediaFetcher
	gw      *Gateway
	sink    channels.Sink
	// bg owns the typing indicators, which outlive their message's
	// handling (the Adapter's WaitGroup: Stop waits for them).
	bg     *sync.WaitGroup
	paired func(account, sender string) bool
	pair   func(ctx context.Context, account, sender, name string) (string, bool, error)

	mu       sync.Mutex
	err      string
	bot      string
	channels map[string]channelInfo
	guilds   map[string]string

	running atomic.Bool
	count   channels.Counters
}

func (acc *account) setErr(err error) {
	acc.mu.Lock()
	defer acc.mu.Unlock()
	acc.err = err.Error()
}

func (acc *account) lastErr() string {
	acc.mu.Lock()
	defer acc.mu.Unlock()
	return acc.err
}

func (acc *account) botName() string {
	acc.mu.Lock()
	defer acc.mu.Unlock()
	return acc.bot
}

// maxCachedChannels bounds the channel cache; past it, it starts over.
const maxCachedChannels = 10000

func (acc *account) remember(cs ...channelInfo) {
	acc.mu.Lock()
	defer acc.mu.Unlock()
	if len(acc.channels) > maxCachedChannels {
		clear(acc.channels)
	}
	for _, c := range cs {
		if c.ID != "" {
			acc.channels[c.ID] = c
		}
	}
}

// dispatch handles one gateway event.
func (acc *account) dispatch(ctx context.Context, event string, d json.RawMessage) {
	if event != "MESSAGE_CREATE" {
		acc.dispatchCache(event, d)
		return
	}
	m, err := decodeMessage(d)
	if err != nil {
		acc.log.Warn("discord: dropped an event that does not decode", "err", err)
		return
	}
	acc.message(ctx, m)
}

// dispatchCache records what an event says about the bot, guilds and
// channels.
func (acc *account) dispatchCache(event string, d json.RawMessage) {
	switch event {
	case "READY":
		var r readyEvent
		if json.Unmarshal(d, &r) == nil {
			acc.mu.Lock()
			acc.bot, acc.err = r.User.Username, ""
			acc.mu.Unlock()
		}
	case "GUILD_CREATE", "GUILD_UPDATE":
		var g guildCreate
		if json.Unmarshal(d, &g) != nil || g.ID == "" {
			return
		}
		acc.mu.Lock()
		if g.Name != "" {
			acc.guilds[g.ID] = g.Name
		}
		acc.mu.Unlock()
		for i := range g.Channels {
			g.Channels[i].GuildID = g.ID
		}
		for i := range g.Threads {
			g.Threads[i].GuildID = g.ID
		}
		acc.remember(g.Channels...)
		acc.remember(g.Threads...)
	case "CHANNEL_CREATE", "CHANNEL_UPDATE", "THREAD_CREATE", "THREAD_UPDATE":
		var c channelInfo
		if json.Unmarshal(d, &c) == nil {
			acc.remember(c)
		}
	}
}

// message routes one message through the policy to the sink.
func (acc *account) message(ctx context.Context, m Message) {
	botID := acc.gw.BotUserID()
	if m.AuthorID == botID || m.AuthorBot || m.WebhookID != "" {
		return // its own posts, other bots, webhooks
	}
	w := where{GuildID: m.GuildID, ChannelID: m.ChannelID}
	var info channelInfo
	if m.GuildID != "" {
		info = acc.channel(ctx, m.ChannelID)
		if info.isThread() && info.ParentID != "" {
			w.ChannelID, w.ThreadID = info.ParentID, m.ChannelID
		}
	}
	dec := acc.conf.decide(m, w, botID)
	if dec.Verdict == Pair && acc.paired != nil && acc.paired(acc.id, m.AuthorID) {
		dec.Verdict = Admit
	}
	if dec.Verdict == Drop {
		acc.log.Debug("discord: message not answered", "reason", dec.Reason, "channel", m.ChannelID, "sender", m.AuthorID)
		return
	}
	in := channels.Inbound{Channel: ChannelName, AccountID: acc.id, EventID: m.ID, SenderID: m.AuthorID,
		SenderName: m.AuthorName, MessageID: m.ID, Text: stripBotMention(m.Content, botID), Mentioned: dec.Mentioned,
		GuildID: m.GuildID, Roles: m.RoleIDs}
	if m.GuildID == "" {
		in.ChatType, in.ChatID, in.To, in.ChatTitle = channels.ChatDirect, m.ChannelID, "user:"+m.AuthorID, m.AuthorName
	} else {
		in.ChatType, in.ChatID, in.ThreadID, in.To = channels.ChatChannel, w.ChannelID, w.ThreadID, "channel:"+m.ChannelID
		in.ChatTitle = acc.title(m.GuildID, info)
	}
	if dec.Verdict == Pair {
		acc.pairing(ctx, m)
		return
	}
	if acc.media != nil {
		if err := acc.media.fetch(ctx, m.Attachments, &in); err != nil {
			// Discord does not redeliver: the turn goes on, the files named.
			acc.log.Warn("discord: attachments not downloaded", "message", m.ID, "err", err)
			for _, at := range m.Attachments {
				in.Text = strings.TrimSpace(in.Text + "\n[media not attached: " + channels.SafeFileName(at.Filename) + " (download failed)]")
			}
			in.Files = nil
		}
	}
	acc.count.Received(acc.now())
	// Discord does not redeliver: a failed hand-over is retried here a few
	// times before the message is given up (and logged).
	var (
		out channels.Outcome
		err error
	)
	for attempt := range 3 {
		if out, err = acc.sink.Handle(ctx, in); err == nil || ctx.Err() != nil {
			break
		}
		t := time.NewTimer(time.Duration(100<<(2*attempt)) * time.Millisecond)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
	if err != nil {
		acc.log.Error("discord: message lost: its turn could not be recorded", "message", m.ID, "channel", m.ChannelID, "err", err)
		return
	}
	if out.RunID != "" && !out.Duplicate && acc.sender != nil {
		sink, channelID := acc.sink, m.ChannelID
		acc.bg.Go(func() {
			channels.KeepTyping(ctx, sink, out.RunID, channels.TypingEvery, func(ctx context.Context) error {
				err := acc.sender.Typing(ctx, channelID)
				if err != nil && ctx.Err() == nil {
					acc.log.Debug("discord: typing indicator", "channel", channelID, "err", err)
				}
				return err
			})
		})
	}
}

// pairing answers an unknown direct sender with a pairing code (once per
// code, not on every message).
func (acc *account) pairing(ctx context.Context, m Message) {
	if acc.pair == nil {
		return
	}
	code, fresh, err := acc.pair(ctx, acc.id, m.AuthorID, m.AuthorName)
	if err != nil {
		acc.log.Info("discord pairing refused", "sender", m.AuthorID, "err", err)
		return
	}
	if !fresh {
		return
	}
	text := "switchboard: access not configured.\n\nYour Discord user id: " + m.AuthorID +
		"\n\nPairing code: " + code + "\n\nAsk the bot owner to approve with:\nswitchboard pairing approve discord " + code
	if _, err := acc.sender.Send(ctx, "user:"+m.AuthorID, text, "pairing:"+acc.id+":"+m.ID); err != nil {
		acc.log.Warn("discord pairing code not sent", "err", err)
	}
}

// channel returns what the gateway said about a channel, asking the REST
// API when it said nothing.
func (acc *account) channel(ctx context.Context, id string) channelInfo {
	acc.mu.Lock()
	c, ok := acc.channels[id]
	acc.mu.Unlock()
	if ok {
		return c
	}
	c, err := acc.sender.fetchChannel(ctx, id)
	if err != nil {
		acc.log.Warn("discord: channel unknown to the gateway and the API", "channel", id, "err", err)
		return channelInfo{ID: id}
	}
	acc.remember(c)
	return c
}

// title is a guild channel's display name: guild#channel.
func (acc *account) title(guildID string, c channelInfo) string {
	acc.mu.Lock()
	g := acc.guilds[guildID]
	acc.mu.Unlock()
	if g == "" {
		g = guildID
	}
	name := c.Name
	if name == "" {
		name = c.ID
	}
	return g + "#" + name
}
