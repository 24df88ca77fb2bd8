package anthropic

import (
	"context"
	"errors"
	"net/http"
	"os"
	"testing"
	"testing/synctest"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/model/internal/fakeapi"
	"github.com/switchboard-go/switchboard/internal/model/modelerr"
)

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
		{"429 with retry-after 0, then success", []reply{rateLimited, {File: "text_reply.json"}}, 2, 2, "", ""},
		{"529 overloaded, then success", []reply{{Status: 529, File: "error_529.json"}, {File: "text_reply.json"}}, 2, 2, "", ""},
		{"529 until retries run out", []reply{{Status: 529, File: "error_529.json", Header: map[string]string{"Retry-After": "0"}}}, 1, 2,
			"anthropic: 529 Overloaded: Overloaded", domain.CodeUnavailable},
		{"400 is not retried", []reply{{Status: 400, File: "error_400.json"}}, 2, 1,
			"anthropic: 400 Bad Request: messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01A09q90qw90lq917835lq9. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
			domain.CodeInvalid},
		{"401", []reply{{Status: 401, File: "error_401.json"}}, 2, 1, "anthropic: 401 Unauthorized: invalid x-api-key", domain.CodeInvalid},
		{"malformed JSON body", []reply{{Body: `{"id":"msg_1","type":"message","content":[{"type":"text","text":"hi"`}}, 2, 1,
			"anthropic: malformed response", domain.CodeInternal},
		{"JSON that is not a message", []reply{{Body: `{"ok":true}`}}, 2, 1, "anthropic: malformed response", domain.CodeInternal},
		// Unlike the OpenAI SDK, this one reads the body inside its retry
		// loop, so a dropped body is retried too.
		{"connection drops in the middle of the body", []reply{{File: "text_reply.json", Cut: true, Header: map[string]string{"Retry-After": "0"}}}, 1, 2,
			"anthropic: request failed: unexpected EOF", domain.CodeUnavailable},
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
			if domain.ErrorCode(err) != domain.CodeTimeout || domain.ErrorMessage(err) != "anthropic: no response within 100ms" {
				t.Errorf("err = %v (code %s), want the per-call timeout", err, domain.ErrorCode(err))
			}
			if el := time.Since(start); el != 100*time.Millisecond {
				t.Errorf("gave up after %v, want at the 100ms per-call timeout", el)
			}
		})
	})
}

// TestRealAPI talks to Anthropic when ANTHROPIC_API_KEY is set.
func TestRealAPI(t *testing.T) {
	key := os.Getenv("ANTHROPIC_API_KEY")
	if key == "" {
		t.Skip("ANTHROPIC_API_KEY not set")
	}
	p, err := New(Config{APIKey: key, MaxRetries: 2, HTTPClient: &http.Client{}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	resp, err := p.Complete(ctx, domain.ModelRequest{
		Model:     "claude-haiku-4-5",
		System:    "Answer with one word.",
		MaxTokens: 50,
		Messages:  []domain.Message{{Role: domain.RoleUser, Content: domain.TextContent("Say OK.")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content.Text() == "" || resp.Message.Usage.TotalTokens == 0 {
		t.Errorf("unexpected answer %+v", resp.Message)
	}
}
