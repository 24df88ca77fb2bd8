package api

import (
	"errors"

	"github.com/switchboard-go/switchboard/internal/attachments"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// ChatRequest is a user message arriving on a channel into a session.
type ChatRequest struct {
	SessionKey string
	Message    string
	// Attachments are the files the message carries (a chat photo or
	// document). They are held to tools.sessions_spawn.attachments'
	// limits, written to the agent's workspace and stored with the user
	// message (images as image blocks the model sees); with files,
	// Message may be empty.
	Attachments []attachments.File
	// Channel defaults to webchat; SenderID identifies the sender for
	// owner-only commands (the local webchat user is always an owner).
	Channel  string
	SenderID string
	// To, AccountID and ThreadID are the delivery hints of the message's
	// channel (OpenClaw's `agent` to/accountId/threadId, chat.send's
	// originating*): where the session's replies go. They are recorded on
	// the session as deliveryContext, lastTo and lastAccountId.
	To        string
	AccountID string
	ThreadID  string
	// ChatType ("direct", "group", "channel") and DisplayName (a group's
	// title) describe the chat a channel message came from; they are
	// recorded on the session row.
	ChatType    string
	DisplayName string
	// Deliver asks for the run's reply to be delivered to the session's
	// channel through the outbox (OpenClaw's `agent {deliver: true}`).
	// The target is ReplyChannel, else the request's Channel, else the
	// session's delivery context or last channel; ReplyTo, else To, else
	// the session's last recipient on that channel. A target that is no
	// external channel (webchat, internal, unknown or none) is refused
	// with DeliveryChannelRequired, and an external channel with no
	// recipient with DeliveryRecipientRequired, unless BestEffortDeliver:
	// then the run goes on without a delivery.
	Deliver           bool
	BestEffortDeliver bool
	ReplyChannel      string
	ReplyTo           string
	IdempotencyKey    string
	// Model and Thinking override the session's for this run.
	Model    string
	Thinking string
	// TimeoutSeconds bounds the run (0 = none).
	TimeoutSeconds int
	// Kind is the run kind (chat by default; agent for the gateway method).
	Kind domain.RunKind
	// ExtraSystem is injected after the agent's system prompt.
	ExtraSystem string
	// Label, when set, labels the session first (the gateway's `agent`).
	Label string
	// Chain is the loop-governance chain an A2A message carried
	// (metadata "switchboard.chain"): the sessions it went through on
	// this and other gateways. The message is refused when its session is
	// already in it or it is longer than session.agentToAgent.maxHops;
	// otherwise the run carries it on to its own sends.
	Chain []string
	// Parent, when set, must be the requester's own session: a session
	// the message creates is created under it (spawnedBy, one level
	// deeper, sandboxed when it is), so it is in the requester's tree. A
	// session-bound A2A caller's conversations are created this way.
	Parent string
}

// ChatResult is what a chat message led to: a run, or a command's answer.
type ChatResult struct {
	Run        domain.Run
	SessionKey string
	// Command is set when the message was a command handled before the
	// model (/new, /reset, /stop, /send); Reply then holds its answer.
	Command string
	Reply   string
	Created bool
}

// ErrRunRequest marks a chat request refused for what it names: a session
// key that is malformed or of an unknown agent, or an unknown channel. The
// gateway's `agent` method answers these as OpenClaw does, `invalid agent
// params: <message>`; other surfaces show the message alone.
var ErrRunRequest = errors.New("invalid run request")

// DeliveryChannelRequired is the message of a `deliver` request whose reply
// has no external channel to go to (OpenClaw's wording).
const DeliveryChannelRequired = "delivery channel is required: pass channel or replyChannel, or use a session with a previous channel"

// DeliveryRecipientRequired is the message (a format: %s is the channel) of
// a `deliver` request whose reply has an external channel but no recipient
// on it: no to or replyTo, and no earlier recipient on that channel in the
// session. It is worded like DeliveryChannelRequired.
const DeliveryRecipientRequired = "delivery recipient is required: pass to or replyTo, or use a session with a previous recipient on %s"
