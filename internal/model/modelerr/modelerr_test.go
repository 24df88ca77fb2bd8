package modelerr

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
)

func TestBodyMessage(t *testing.T) {
	long := strings.Repeat("é", 400)
	tests := []struct {
		name, body, want string
	}{
		{"openai shape", `{"error":{"message":"Incorrect API key","type":"invalid_request_error"}}`, "Incorrect API key"},
		{"anthropic shape", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "Overloaded"},
		{"error type only", `{"error":{"type":"server_error"}}`, "server_error"},
		{"bare error string", `{"error":"model not found"}`, "model not found"},
		{"top-level message", `{"message":"no route"}`, "no route"},
		{"fastapi detail", `{"detail":"Not Found"}`, "Not Found"},
		{"html page squeezed", "<html>\n  <h1>502</h1>\n</html>\n", "<html> <h1>502</h1> </html>"},
		{"empty", "", ""},
		{"long text shortened", long, strings.Repeat("é", 300) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := BodyMessage([]byte(tt.body)); got != tt.want {
				t.Errorf("BodyMessage = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestStatus(t *testing.T) {
	cause := errors.New("sdk error")
	tests := []struct {
		status   int
		msg      string
		wantMsg  string
		wantCode string
	}{
		{400, "bad", "p: 400 Bad Request: bad", domain.CodeInvalid},
		{401, "", "p: 401 Unauthorized", domain.CodeInvalid},
		{404, "nope", "p: 404 Not Found: nope", domain.CodeInvalid},
		{408, "", "p: 408 Request Timeout", domain.CodeUnavailable},
		{409, "", "p: 409 Conflict", domain.CodeUnavailable},
		{429, "slow down", "p: 429 Too Many Requests: slow down", domain.CodeUnavailable},
		{500, "", "p: 500 Internal Server Error", domain.CodeUnavailable},
		{529, "Overloaded", "p: 529 Overloaded: Overloaded", domain.CodeUnavailable},
		{599, "", "p: HTTP 599", domain.CodeUnavailable},
		{302, "", "p: 302 Found", domain.CodeInternal},
	}
	for _, tt := range tests {
		err := Status("p", tt.status, tt.msg, cause)
		if err.Message != tt.wantMsg || err.Code != tt.wantCode || !errors.Is(err, cause) {
			t.Errorf("Status(%d) = %q %q, want %q %q wrapping the cause", tt.status, err.Code, err.Message, tt.wantCode, tt.wantMsg)
		}
		if Retryable(err) != (tt.wantCode == domain.CodeUnavailable) {
			t.Errorf("Retryable(%d) wrong", tt.status)
		}
	}
}

func TestTransport(t *testing.T) {
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	err := Transport(cancelled, "p", time.Second, errors.New("read: connection reset"))
	if !errors.Is(err, context.Canceled) || Retryable(err) {
		t.Errorf("cancelled caller: %v", err)
	}
	err = Transport(t.Context(), "p", 2*time.Second, context.DeadlineExceeded)
	if domain.ErrorCode(err) != domain.CodeTimeout || domain.ErrorMessage(err) != "p: no response within 2s" {
		t.Errorf("timeout: %v", err)
	}
	err = Transport(t.Context(), "p", time.Second, errors.New("dial tcp: connection refused"))
	if !Retryable(err) || domain.ErrorMessage(err) != "p: request failed: dial tcp: connection refused" {
		t.Errorf("connection: %v", err)
	}
	if Retryable(errors.New("plain")) || Retryable(nil) {
		t.Error("plain errors are not retryable")
	}
}
