package channels

import (
	"context"
	"errors"
	"log/slog"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// Gate is what the Router needs of the engine's one gate (api.Service).
type Gate interface {
	Chat(ctx context.Context, p api.Principal, req api.ChatRequest) (api.ChatResult, error)
	WaitRun(ctx context.Context, p api.Principal, req api.WaitRequest) (domain.Run, error)
}

// RouterOptions configure a Router. Gate and Config are required.
type RouterOptions struct {
	Gate Gate
	// Config returns the live config (routing reads session.dmScope,
	// session.groupScope, bindings).
	Config func() *config.Config
	// Sessions finds rows of a route's alternate keys (nil: none tried).
	Sessions SessionReader
	// Events subscribes to the engine's event bus (engine.Subscribe);
	// streamed replies follow a run's deltas on it (nil: none stream).
	Events func(buffer int) (<-chan domain.Event, func())
	Logger *slog.Logger
}

// Router is the Sink of a gateway's adapters: it routes each inbound
// message to its session and submits it through the gate as a chat turn
// whose reply is delivered, through the outbox, to the chat it came from.
type Router struct {
	o RouterOptions
}

// NewRouter builds a Router.
func NewRouter(o RouterOptions) *Router {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Router{o: o}
}

// Principal is who a channel message acts as on the gate: a sender the
// adapter let through (allowlists, pairing, mention gating) chats like
// the local user; owner-only commands still check session.owners
// against the sender id.
func Principal(channel string) api.Principal {
	return api.Principal{Name: "channel:" + channel, Scopes: api.AllScopes}
}

// Handle routes m and submits it. The turn's idempotency key is the
// channel, account and EventID, so a redelivered event finds its first
// turn (Outcome.Duplicate) instead of starting another.
func (r *Router) Handle(ctx context.Context, m Inbound) (Outcome, error) {
	if strings.TrimSpace(m.Text) == "" && len(m.Files) == 0 {
		return Outcome{}, nil
	}
	route := Resolve(r.o.Config(), m)
	key := route.SessionKey
	if r.o.Sessions != nil {
		for _, alt := range route.Alternates {
			if _, err := r.o.Sessions.GetSession(ctx, alt); err == nil {
				key = alt
				break
			} else if !errors.Is(err, domain.ErrNotFound) {
				return Outcome{}, err
			}
		}
	}
	idem := ""
	if m.EventID != "" {
		idem = m.Channel + ":" + normAccount(m.AccountID) + ":" + m.EventID
	}
	req := api.ChatRequest{SessionKey: key, Message: Envelope(m), Attachments: m.Files, Channel: m.Channel, SenderID: m.SenderID,
		To: m.To, AccountID: normAccount(m.AccountID), ThreadID: m.ThreadID, ChatType: chatTypeOf(m),
		DisplayName: m.ChatTitle, Deliver: true, ReplyChannel: m.Channel, ReplyTo: m.To,
		IdempotencyKey: idem, ExtraSystem: m.SystemPrompt}
	p := Principal(m.Channel)
	res, err := r.o.Gate.Chat(ctx, p, req)
	if refused(err) {
		// The gate said no for good (the session's send policy denies it,
		// a command the sender may not use): offering the message again
		// would be refused again and hold up the chats behind it.
		r.o.Logger.Info("channel message refused", "channel", m.Channel, "session", key, "event", m.EventID, "err", err)
		return Outcome{SessionKey: key}, nil
	}
	if err != nil {
		return Outcome{SessionKey: key}, err
	}
	out := Outcome{SessionKey: res.SessionKey, RunID: res.Run.ID, Command: res.Command}
	if out.SessionKey == "" {
		out.SessionKey = key
	}
	if res.Command != "" {
		// The engine queued the command's answer to this chat (the
		// request delivers), past the send policy a /send off just set.
		return out, nil
	}
	out.Duplicate = !res.Created && res.Run.ID != ""
	return out, nil
}

// WaitRun returns when a turn's run has ended (or ctx has): the typing
// action lasts that long.
func (r *Router) WaitRun(ctx context.Context, runID string) error {
	for ctx.Err() == nil {
		run, err := r.o.Gate.WaitRun(ctx, Principal("channel"), api.WaitRequest{RunID: runID, Timeout: TypingMax})
		if err != nil {
			return err
		}
		if domain.RunTerminal(run.Status) {
			return nil
		}
	}
	return ctx.Err()
}

var _ RunWaiter = (*Router)(nil)

// refused reports a gate error that repeating the request cannot change.
func refused(err error) bool {
	switch domain.ErrorCode(err) {
	case domain.CodeInvalid, domain.CodeForbidden:
		return true
	}
	return false
}

// chatTypeOf is the session chatType of m.
func chatTypeOf(m Inbound) string {
	if m.ChatType == "" {
		return ChatDirect
	}
	return m.ChatType
}

// Envelope is the text a channel message enters the transcript with: a
// group message is prefixed with its sender, so the model can tell the
// members apart; a direct message and a chat command are the text as is.
func Envelope(m Inbound) string {
	text := strings.TrimSpace(m.Text)
	if m.ChatType == ChatDirect || m.ChatType == "" || strings.HasPrefix(text, "/") {
		return text
	}
	who := strings.TrimSpace(m.SenderName)
	if m.SenderUsername != "" {
		if who != "" {
			who += " "
		}
		who += "(@" + m.SenderUsername + ")"
	}
	if who == "" {
		who = m.SenderID
	}
	if who == "" {
		return text
	}
	return who + ": " + text
}

// StreamRun calls each with a run's reply text so far (the current model
// step's text) as its deltas arrive on the engine's event bus, until the
// run ends. Without RouterOptions.Events it only waits.
func (r *Router) StreamRun(ctx context.Context, runID string, each func(string)) error {
	if r.o.Events == nil {
		return r.WaitRun(ctx, runID)
	}
	evs, stop := r.o.Events(256)
	defer stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ended := make(chan error, 1)
	go func() { ended <- r.WaitRun(ctx, runID) }()
	defer func() { cancel(); <-ended }()
	for {
		select {
		case err := <-ended:
			ended <- err // for the deferred receive
			return err
		case ev, ok := <-evs:
			if !ok {
				return nil
			}
			if ev.Kind == domain.EventDelta && ev.Delta != nil && ev.Delta.RunID == runID && ev.Delta.Delta.Text != "" {
				each(ev.Delta.Accumulated)
			}
		}
	}
}

var _ RunStreamer = (*Router)(nil)
