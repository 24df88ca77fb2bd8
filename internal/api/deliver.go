package api

import "github.com/switchboard-go/switchboard/internal/attachments"

// DeliverRequest is a direct outbound message to a channel (the gateway's
// WS `send` and POST /api/send; operator only, OpDeliver).
type DeliverRequest struct {
	// SessionKey names the session whose channel gets the message
	// (default: the main session).
	SessionKey string
	// Channel overrides the session's channel; To (required) is the
	// recipient on it.
	Channel string
	To      string
	Message string
	// Attachments are files to send with (or instead of) Message, inline
	// like sessions_spawn's ({name, content, encoding, mimeType}) and held
	// to the same limits; only channels that can send files take them.
	Attachments []attachments.Spec
	// IdempotencyKey deduplicates retries within the caller's scope.
	IdempotencyKey string
}

// DeliverResult is the queued outbox message. MessageID is the outbox
// row's id, never the idempotency key.
type DeliverResult struct {
	MessageID  string `json:"messageId"`
	Channel    string `json:"channel"`
	To         string `json:"to,omitempty"`
	Status     string `json:"status"`
	SessionKey string `json:"sessionKey"`
}
