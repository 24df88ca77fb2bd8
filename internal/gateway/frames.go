package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// Gateway protocol error codes (OpenClaw's vocabulary).
const (
	CodeInvalidRequest = "INVALID_REQUEST"
	CodeUnavailable    = "UNAVAILABLE"
	CodeAgentTimeout   = "AGENT_TIMEOUT"
	CodeNotPaired      = "NOT_PAIRED"
	// CodeForbidden answers a call above the connection's scopes.
	CodeForbidden = "FORBIDDEN"
	// CodeConflict answers a reused idempotency key with other
	// parameters (HTTP 409).
	CodeConflict = "CONFLICT"
)

// reqFrame is a client request. ID is kept raw so a response echoes it
// exactly as the client wrote it.
type reqFrame struct {
	Type   string          `json:"type"`
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	// TraceParent is a W3C trace context for this request (an extension;
	// without it the upgrade request's applies).
	TraceParent string `json:"traceparent,omitempty"`
}

// resFrame is a response. A request may get more than one (`agent`).
type resFrame struct {
	Type    string          `json:"type"`
	ID      json.RawMessage `json:"id"`
	OK      bool            `json:"ok"`
	Payload any             `json:"payload,omitempty"`
	Error   *wireError      `json:"error,omitempty"`
}

// eventFrame is a server push. Seq increases per connection.
type eventFrame struct {
	Type    string `json:"type"`
	Event   string `json:"event"`
	Payload any    `json:"payload,omitempty"`
	Seq     *int64 `json:"seq,omitempty"`
}

// wireError is the error object of a failed response.
type wireError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Details any    `json:"details,omitempty"`
	// Retryable says the same request may succeed later (a transient
	// refusal: buffered-bytes budget, shutdown, a failed write).
	Retryable bool `json:"retryable,omitempty"`
}

// payloadError is a failure whose response also carries a payload (the
// final `res` of a failed `agent` run).
type payloadError struct {
	code    string
	message string
	payload any
}

func (e *payloadError) Error() string { return e.message }

// toWireError maps an engine or gateway error to the protocol's error
// codes. It is the one place this mapping lives.
func toWireError(err error) *wireError {
	var pe *payloadError
	if errors.As(err, &pe) {
		return &wireError{Code: pe.code, Message: pe.message}
	}
	// OpenClaw's refusal for want of a scope: FORBIDDEN, with the scope
	// named in its details as well as in the message.
	if need, ok := api.AsMissingScope(err); ok {
		return &wireError{Code: CodeForbidden, Message: domain.ErrorMessage(err), Details: map[string]any{
			"code": "MISSING_SCOPE", "missingScope": need.OperatorName(), "requiredScopes": []string{need.OperatorName()},
		}}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &wireError{Code: CodeUnavailable, Message: "request cancelled", Details: map[string]any{"code": domain.CodeUnavailable}}
	}
	code := CodeInvalidRequest
	switch domain.ErrorCode(err) {
	case domain.CodeTimeout:
		code = CodeAgentTimeout
	case domain.CodeUnavailable, domain.CodeInternal:
		code = CodeUnavailable
	case domain.CodeConflict:
		code = CodeConflict
	}
	// details.code is switchboard's machine-readable code, the one the
	// other surfaces give for the same refusal: INVALID_REQUEST alone
	// covers bad input, not found, forbidden and conflict alike.
	return &wireError{Code: code, Message: domain.ErrorMessage(err), Retryable: domain.ErrorCode(err) == domain.CodeUnavailable,
		Details: map[string]any{"code": domain.ErrorCode(err)}}
}

// idKnown reports whether a frame carried a usable request id.
func idKnown(id json.RawMessage) bool {
	// The usual id, a string without escapes, needs no decoding (the
	// frame's decoding has checked it is valid JSON).
	if n := len(id); n > 2 && id[0] == '"' && id[n-1] == '"' && !bytes.ContainsAny(id[1:n-1], "\\\"") {
		return true
	}
	var s string
	return len(id) > 0 && json.Unmarshal(id, &s) == nil && s != ""
}
