package openai

import (
	"context"
	"errors"
	"net/http"
	"os"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/model/internal/fakeapi"
	"github.com/switchboard-go/switchboard/internal/model/modelerr"
)

var hi = domain.ModelRequest{Model: "gpt-4.1-mini", Messages: []domain.Message{{Role: domain.RoleUser, Content: domain.TextContent("hi")}}}

func TestRetriesAndErrors(t *testing.T) {
	rateLimited := reply{Status: 429, File: "error_429.json", Header: map[string]string{"Retry-After": "0"}}
	tests := []struct {
		name     string
		replies  []reply
		retries  int
		wantReqs int
		wantErr  string // "" = success
		wantCode string
	}{
		{"429 with Retry-After 0, then success", []reply{rateLimited, {File: "text_reply.json"}}, 2, 2, "", ""},
		{"500, then success", []reply{{Status: 500, File: "error_500.json"}, {File: "text_reply.json"}}, 2, 2, "", ""},
		{"429 until retries run out", []reply{rateLimited}, 2, 3,
			"openai: 429 Too Many Requests: Rate limit reached for gpt-4.1-mini in organization org-abc on tokens per min (TPM): Limit 200000, Used 199850, Requested 1873. Please try again in 517ms.",
			domain.CodeUnavailable},
		{"400 is not retried", []reply{{Status: 400, File: "error_400.json"}}, 2, 1,
			"openai: 400 Bad Request: Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
			domain.CodeInvalid},
		{"401 names the status", []reply{{Status: 401, File: "error_401.json"}}, 2, 1,
			"openai: 401 Unauthorized: Incorrect API key provided: sk-proj-********************abcd. You can find your API key at https://platform.openai.com/account/api-keys.",
			domain.CodeInvalid},
		{"bare string error of a local server", []reply{{Status: 404, Body: `{"error":"model \"llama9\" not found, try pulling it first"}`}}, 2, 1,
			`openai: 404 Not Found: model "llama9" not found, try pulling it first`, domain.CodeInvalid},
		{"HTML error page from a proxy", []reply{{Status: 502, Header: map[string]string{"Content-Type": "text/html"}, Body: "<html>\n<body>502 Bad Gateway</body>\n</html>"}}, 0, 1,
			"openai: 502 Bad Gateway: <html> <body>502 Bad Gateway</body> </html>", domain.CodeUnavailable},
		{"malformed JSON body", []reply{{Body: `{"id":"chatcmpl-1","choices":[{"message":`}}, 2, 1,
			"openai: malformed response", domain.CodeInternal},
		{"connection drops in the middle of the body", []reply{{File: "text_reply.json", Cut: true}}, 2, 1,
			"openai: request failed: unexpected EOF", domain.CodeUnavailable},
		{"no choices", []reply{{Body: `{"id":"chatcmpl-1","object":"chat.completion","choices":[]}`}}, 2, 1,
			"openai: malformed response", domain.CodeInternal},
		{"non-JSON success body", []reply{{Header: map[string]string{"Content-Type": "text/plain"}, Body: "OK"}}, 2, 1,
			"openai: malformed response", domain.CodeInternal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := fakeapi.New(t, tt.replies...)
			p := newProvider(t, f, func(c *Config) { c.MaxRetries = tt.retries })
			resp, err := p.Complete(t.Context(), hi)
			if got := len(f.Requests()); got != tt.wantReqs {
				t.Errorf("server saw %d requests, want %d", got, tt.wantReqs)
			}
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				if resp.Message.Content.Text() == "" {
					t.Errorf("empty answer after retry")
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want %q", tt.wantErr)
			}
			if domain.ErrorMessage(err) != tt.wantErr {
				t.Errorf("message = %q\nwant      %q", domain.ErrorMessage(err), tt.wantErr)
			}
			if code := domain.ErrorCode(err); code != tt.wantCode {
				t.Errorf("code = %q, want %q", code, tt.wantCode)
			}
			if modelerr.Retryable(err) != (tt.wantCode == domain.CodeUnavailable) {
				t.Errorf("Retryable = %v for %v", modelerr.Retryable(err), err)
			}
		})
	}
}

// TestStalledServer checks that a call to a server that never answers ends
// exactly when the caller's deadline, the caller's cancel or the per-call
// timeout says so. It runs in a synctest bubble against an in-process
// transport, so the times are exact and machine load cannot break them.
func TestStalledServer(t *testing.T) {
	t.Run("caller deadline", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			st := &fakeapi.Stalled{}
			p := stalledProvider(t, st, nil)
			ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
			defer cancel()
			start := time.Now()
			_, err := p.Complete(ctx, hi)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("err = %v, want deadline exceeded", err)
			}
			if el := time.Since(start); el != 100*time.Millisecond {
				t.Errorf("gave up after %v, want at the caller's 100ms deadline", el)
			}
			if n := st.Requests(); n != 1 {
				t.Errorf("%d requests: the caller's deadline must not be retried", n)
			}
		})
	})
	t.Run("caller cancel", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			st := &fakeapi.Stalled{}
			p := stalledProvider(t, st, nil)
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan error, 1)
			go func() {
				_, err := p.Complete(ctx, hi)
				done <- err
			}()
			synctest.Wait()
			if n := st.Requests(); n != 1 {
				t.Fatalf("%d requests in flight before the cancel, want 1", n)
			}
			start := time.Now()
			cancel()
			synctest.Wait()
			select {
			case err := <-done:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("err = %v, want context.Canceled", err)
				}
			default:
				t.Fatal("Complete did not return after cancel")
			}
			if el := time.Since(start); el != 0 {
				t.Errorf("returned %v after the cancel, want at once", el)
			}
			if n := st.Requests(); n != 1 {
				t.Errorf("%d requests: a cancelled call must not be retried", n)
			}
		})
	})
	t.Run("per-call timeout", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			st := &fakeapi.Stalled{}
			p := stalledProvider(t, st, func(c *Config) { c.Timeout = 100 * time.Millisecond })
			start := time.Now()
			_, err := p.Complete(t.Context(), hi)
			if domain.ErrorCode(err) != domain.CodeTimeout || domain.ErrorMessage(err) != "openai: no response within 100ms" {
				t.Errorf("err = %v (code %s), want the per-call timeout", err, domain.ErrorCode(err))
			}
			if el := time.Since(start); el != 100*time.Millisecond {
				t.Errorf("gave up after %v, want at the 100ms per-call timeout", el)
			}
		})
	})
}

func TestConnectionRefused(t *testing.T) {
	f := fakeapi.New(t, reply{File: "text_reply.json"})
	p := newProvider(t, f, func(c *Config) { c.MaxRetries = 0 })
	f.Close()
	_, err := p.Complete(t.Context(), hi)
	if domain.ErrorCode(err) != domain.CodeUnavailable || !strings.HasPrefix(domain.ErrorMessage(err), "openai: request failed: ") {
		t.Errorf("err = %v (code %s), want a retryable connection error", err, domain.ErrorCode(err))
	}
}

// TestRealAPI talks to OpenAI when OPENAI_API_KEY is set.
func TestRealAPI(t *testing.T) {
	key := os.Getenv("OPENAI_API_KEY")
	if key == "" {
		t.Skip("OPENAI_API_KEY not set")
	}
	p, err := New(Config{APIKey: key, MaxRetries: 2, HTTPClient: &http.Client{}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	resp, err := p.Complete(ctx, domain.ModelRequest{
		Model:    "gpt-4.1-mini",
		System:   "Answer with one word.",
		Messages: []domain.Message{{Role: domain.RoleUser, Content: domain.TextContent("Say OK.")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content.Text() == "" || resp.Message.Usage.TotalTokens == 0 {
		t.Errorf("unexpected answer %+v", resp.Message)
	}
}
