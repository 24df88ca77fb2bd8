package channels

import (
	"context"
	"time"

	"github.com/switchboard-go/switchboard/internal/attachments"
)

// Adapter connects one provider to switchboard. The Registry owns it:
// Start once, then Send from the outbox worker (concurrently with its own
// receiving), then Stop once.
type Adapter interface {
	// Channel is the channel name the adapter serves ("telegram").
	Channel() string
	// Start begins receiving (long polling, a webhook, a gateway
	// connection) for every enabled account and returns; inbound
	// messages go to sink. The goroutines it starts run until Stop. An
	// account that cannot start (a refused token) is reported by Status
	// and logged; it does not fail Start, so the gateway keeps serving.
	Start(ctx context.Context, sink Sink) error
	// Stop ends receiving and waits for the adapter's goroutines, up to
	// ctx's end.
	Stop(ctx context.Context) error
	// Send delivers one outbound message. An error wrapping
	// outbox.ErrPermanent is never retried; a *RetryAfterError asks the
	// outbox to wait that long first; any other error is retried with
	// backoff.
	Send(ctx context.Context, msg Outbound) error
	// Status reports each configured account.
	Status() []AccountStatus
}

// Outbound is one message to deliver to a chat.
type Outbound struct {
	// AccountID is the bot account to send with (DefaultAccountID, or the
	// account the session last heard on).
	AccountID string
	// To is the recipient in the channel's form (Inbound.To).
	To string
	// Text is Markdown; the adapter converts it to the provider's
	// formatting and splits it at the provider's length limit.
	Text string
	// Files are photos and documents to send with Text (only to an
	// adapter that is a FileSender).
	Files []attachments.File
	// IdempotencyKey is the outbox item's key (Discord sends it as the
	// nonce); SessionKey the session the message belongs to.
	IdempotencyKey string
	SessionKey     string
	// RunID is the run whose reply this is ("" for other messages): an
	// adapter that streamed that run's reply edits the streamed message
	// into this text instead of sending a new one.
	RunID string
}

// FileSender is an Adapter whose Send sends Outbound.Files; an item with
// files for any other adapter fails for good ("cannot send files yet").
type FileSender interface {
	Adapter
	// SendsFiles marks the adapter.
	SendsFiles()
}

// Sink receives inbound messages. The Router implements it; tests use
// fakes.
type Sink interface {
	// Handle turns m into a chat turn (or a command's answer, or drops it
	// by policy). It returns nil once the outcome is durable; the adapter
	// acknowledges m to its provider only then. An error means nothing
	// durable happened and the adapter should offer m again later.
	Handle(ctx context.Context, m Inbound) (Outcome, error)
}

// SinkFunc adapts a function to Sink.
type SinkFunc func(ctx context.Context, m Inbound) (Outcome, error)

// Handle calls f.
func (f SinkFunc) Handle(ctx context.Context, m Inbound) (Outcome, error) { return f(ctx, m) }

// Outcome is what the Sink did with an inbound message.
type Outcome struct {
	// SessionKey is the session the message was routed to.
	SessionKey string
	// RunID is the chat turn's run ("" for a command or a drop).
	RunID string
	// Duplicate reports a message whose EventID already had its turn.
	Duplicate bool
	// Command is the chat command the message was ("/new", …), "" for none.
	Command string
}

// AccountStatus is one account's state, in the shape of OpenClaw's
// `channels.status` account snapshot.
type AccountStatus struct {
	AccountID string `json:"accountId"`
	Name      string `json:"name,omitempty"`
	Enabled   bool   `json:"enabled"`
	// Configured reports a usable token.
	Configured bool `json:"configured"`
	// Running reports receiving in progress; Connected a provider that
	// answered the last call.
	Running   bool `json:"running"`
	Connected bool `json:"connected"`
	// Mode is how updates arrive: "polling", "webhook", "gateway" or
	// "sse" (an event stream).
	Mode string `json:"mode,omitempty"`
	// BotUsername is the bot's @handle once known.
	BotUsername string `json:"botUsername,omitempty"`
	// LastError is the last failure (a refused token, the provider down).
	LastError string `json:"lastError,omitempty"`
	// Times are Unix milliseconds, 0 when never.
	LastStartAt    int64 `json:"lastStartAt,omitempty"`
	LastInboundAt  int64 `json:"lastInboundAt,omitempty"`
	LastOutboundAt int64 `json:"lastOutboundAt,omitempty"`
	// Counters since the gateway started.
	Received  uint64 `json:"received"`
	Delivered uint64 `json:"delivered"`
	Retried   uint64 `json:"retried"`
	Failed    uint64 `json:"failed"`
}

// RetryAfterError is a send the provider rate-limited: retry no sooner
// than After (Telegram's retry_after, Discord's Retry-After).
type RetryAfterError struct {
	After time.Duration
	Err   error
}

// Error describes the limit.
func (e *RetryAfterError) Error() string {
	return "rate limited, retry after " + e.After.String() + ": " + e.Err.Error()
}

// Unwrap returns the provider's error.
func (e *RetryAfterError) Unwrap() error { return e.Err }

// RetryAfter returns the wait a rate-limited send asked for.
func (e *RetryAfterError) RetryAfter() time.Duration { return e.After }
