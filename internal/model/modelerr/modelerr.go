// Package modelerr is the error vocabulary of model providers. Every error a
// provider's Complete returns is a *domain.Error (or wraps the caller's
// context error), whose message names the provider and, for HTTP APIs, the
// status, so runs and clients can show it as is:
//
//   - CodeUnavailable: a later call may succeed (rate limit, overload, 5xx,
//     connection failure) — the provider already retried before giving up;
//   - CodeTimeout: the per-call timeout ended the call;
//   - CodeInvalid: the API refused the request (4xx: bad request, unknown
//     model, bad credentials); calling again will fail the same way;
//   - CodeInternal: anything else, including malformed responses and the
//     script model's configured errors.
package modelerr

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// Retryable reports whether a later call may succeed where this one failed.
// Providers retry such failures themselves first, so a caller seeing one has
// already waited out the provider's retries.
func Retryable(err error) bool {
	var e *domain.Error
	return errors.As(err, &e) && e.Code == domain.CodeUnavailable
}

// RetryableStatus reports whether an HTTP status is worth retrying: request
// timeouts, conflicts, rate limits and server errors (Anthropic's 529
// overload included).
func RetryableStatus(status int) bool {
	return status == http.StatusRequestTimeout || status == http.StatusConflict ||
		status == http.StatusTooManyRequests || status >= 500
}

// Status returns the error of a call the API answered with an HTTP error
// status, like `openai: 401 Unauthorized: Incorrect API key provided`.
func Status(provider string, status int, apiMessage string, cause error) *domain.Error {
	msg := fmt.Sprintf("%s: %d %s", provider, status, statusText(status))
	if statusText(status) == "" {
		msg = fmt.Sprintf("%s: HTTP %d", provider, status)
	}
	if apiMessage != "" {
		msg += ": " + apiMessage
	}
	code := domain.CodeInternal
	switch {
	case RetryableStatus(status):
		code = domain.CodeUnavailable
	case status >= 400 && status < 500:
		code = domain.CodeInvalid
	}
	return &domain.Error{Code: code, Message: msg, Err: cause}
}

// statusText knows Anthropic's 529 besides the standard statuses.
func statusText(status int) string {
	if status == 529 {
		return "Overloaded"
	}
	return http.StatusText(status)
}

// Malformed returns the error of a response that could not be understood.
func Malformed(provider string, cause error) *domain.Error {
	return &domain.Error{Code: domain.CodeInternal, Message: provider + ": malformed response", Err: cause}
}

// Transport returns the error of a call that got no usable HTTP answer.
// parent is the caller's context: when it is done its error is returned
// (wrapped, so errors.Is(err, context.Canceled) holds) because the caller
// asked for the stop. Otherwise a deadline means the per-call timeout fired,
// and anything else is a connection failure.
func Transport(parent context.Context, provider string, timeout time.Duration, err error) error {
	if perr := parent.Err(); perr != nil {
		return fmt.Errorf("%s: %w", provider, context.Cause(parent))
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &domain.Error{Code: domain.CodeTimeout, Message: fmt.Sprintf("%s: no response within %s", provider, timeout), Err: err}
	}
	return &domain.Error{Code: domain.CodeUnavailable, Message: fmt.Sprintf("%s: request failed: %v", provider, err), Err: err}
}

// maxMessage bounds an error message taken from a response body, so an HTML
// error page does not flood logs and clients.
const maxMessage = 300

// BodyMessage extracts a human message from an error response body. It knows
// the OpenAI shape {"error":{"message"}}, the Anthropic shape
// {"type":"error","error":{"type","message"}}, the bare {"error":"text"} of
// some local servers and {"message"}; anything else is returned trimmed and
// shortened.
func BodyMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  string          `json:"detail"`
	}
	if json.Unmarshal(body, &v) == nil {
		var inner struct {
			Message string `json:"message"`
			Type    string `json:"type"`
		}
		var s string
		switch {
		case len(v.Error) > 0 && json.Unmarshal(v.Error, &inner) == nil && inner.Message != "":
			return shorten(inner.Message)
		case len(v.Error) > 0 && json.Unmarshal(v.Error, &s) == nil && s != "":
			return shorten(s)
		case v.Message != "":
			return shorten(v.Message)
		case v.Detail != "":
			return shorten(v.Detail)
		case inner.Type != "":
			return shorten(inner.Type)
		}
	}
	return shorten(strings.Join(strings.Fields(string(body)), " "))
}

func shorten(s string) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > maxMessage {
		return string(r[:maxMessage]) + "…"
	}
	return s
}
