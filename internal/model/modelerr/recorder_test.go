package modelerr

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// brokenBody fails its reads after some bytes, as a dropped connection does.
type brokenBody struct{ r io.Reader }

func (b *brokenBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err == io.EOF {
		return n, errors.New("unexpected EOF: connection reset")
	}
	return n, err
}
func (*brokenBody) Close() error { return nil }

// TestClassify drives one call per case through the Recorder's middleware
// (the SDK's HTTP attempt) and then Classify: every class of the package
// comment, whatever error the SDK made of the answer.
func TestClassify(t *testing.T) {
	sdkErr := errors.New("sdk: could not decode")
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name     string
		parent   context.Context
		status   int    // 0: no response
		body     string // response body
		broken   bool   // the body's read fails
		transErr error  // the transport's error
		sdkErr   error  // what the SDK returned (default sdkErr)
		wantCode string
		wantMsg  string
		canceled bool
	}{
		{name: "401 with openai body: invalid", status: 401, body: `{"error":{"message":"Incorrect API key"}}`,
			wantCode: domain.CodeInvalid, wantMsg: "p: 401 Unauthorized: Incorrect API key"},
		{name: "404 bare error string: invalid", status: 404, body: `{"error":"model not found"}`,
			wantCode: domain.CodeInvalid, wantMsg: "p: 404 Not Found: model not found"},
		{name: "429: unavailable", status: 429, body: `{"error":{"message":"slow down"}}`,
			wantCode: domain.CodeUnavailable, wantMsg: "p: 429 Too Many Requests: slow down"},
		{name: "529 anthropic overload: unavailable", status: 529, body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
			wantCode: domain.CodeUnavailable, wantMsg: "p: 529 Overloaded: Overloaded"},
		{name: "502 html from a proxy: unavailable", status: 502, body: "<html>\n<h1>Bad Gateway</h1></html>",
			wantCode: domain.CodeUnavailable, wantMsg: "p: 502 Bad Gateway: <html> <h1>Bad Gateway</h1></html>"},
		{name: "no response: unavailable", transErr: errors.New("dial tcp: connection refused"), sdkErr: errors.New("dial tcp: connection refused"),
			wantCode: domain.CodeUnavailable, wantMsg: "p: request failed: dial tcp: connection refused"},
		{name: "2xx body cut off: unavailable", status: 200, body: `{"choices":[`, broken: true,
			wantCode: domain.CodeUnavailable, wantMsg: "p: request failed: unexpected EOF: connection reset"},
		{name: "2xx undecodable body: internal (malformed)", status: 200, body: `{"choices":`,
			wantCode: domain.CodeInternal, wantMsg: "p: malformed response"},
		{name: "per-call timeout: timeout", status: 200, sdkErr: fmt.Errorf("read: %w", context.DeadlineExceeded),
			wantCode: domain.CodeTimeout, wantMsg: "p: no response within 3s"},
		{name: "caller cancelled: the caller's error", parent: cancelled, status: 500, sdkErr: context.Canceled, canceled: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent := tt.parent
			if parent == nil {
				parent = context.Background()
			}
			var rec Recorder
			req, _ := http.NewRequest(http.MethodPost, "http://model.invalid/v1", nil)
			res, err := rec.Middleware(req, func(*http.Request) (*http.Response, error) {
				if tt.status == 0 {
					return nil, tt.transErr
				}
				var body io.ReadCloser = io.NopCloser(strings.NewReader(tt.body))
				if tt.broken {
					body = &brokenBody{strings.NewReader(tt.body)}
				}
				return &http.Response{StatusCode: tt.status, Body: body}, nil
			})
			if tt.status == 0 {
				if res != nil || err == nil {
					t.Fatalf("no response: middleware = %v, %v", res, err)
				}
			} else {
				// The SDK reads the body: an error body is still readable
				// after the recorder kept it.
				b, rerr := io.ReadAll(res.Body)
				if !tt.broken && (rerr != nil || string(b) != tt.body) {
					t.Fatalf("body after middleware = %q, %v", b, rerr)
				}
			}
			if rec.Attempts() != 1 {
				t.Errorf("attempts = %d", rec.Attempts())
			}
			serr := tt.sdkErr
			if serr == nil {
				serr = sdkErr
			}
			got := Classify(parent, "p", 3*time.Second, &rec, serr)
			if tt.canceled {
				if !errors.Is(got, context.Canceled) || domain.ErrorCode(got) == domain.CodeUnavailable {
					t.Fatalf("cancelled: %v", got)
				}
				return
			}
			if domain.ErrorCode(got) != tt.wantCode || domain.ErrorMessage(got) != tt.wantMsg {
				t.Fatalf("Classify = %q %q, want %q %q", domain.ErrorCode(got), domain.ErrorMessage(got), tt.wantCode, tt.wantMsg)
			}
			if Retryable(got) != (tt.wantCode == domain.CodeUnavailable) {
				t.Errorf("Retryable = %v for %s", Retryable(got), tt.wantCode)
			}
		})
	}
}

// The recorder describes the last attempt: a retried 503 that then
// succeeded leaves no error status behind, and error bodies are bounded.
func TestRecorderLastAttempt(t *testing.T) {
	var rec Recorder
	req, _ := http.NewRequest(http.MethodPost, "http://model.invalid/v1", nil)
	for _, status := range []int{503, 200} {
		res, _ := rec.Middleware(req, func(*http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: status, Body: io.NopCloser(strings.NewReader(strings.Repeat("x", 100<<10)))}, nil
		})
		if status == 503 && len(rec.body) != maxErrorBody {
			t.Errorf("kept %d bytes of an error body, want %d", len(rec.body), maxErrorBody)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		_ = res.Body.Close()
	}
	if rec.Attempts() != 2 {
		t.Errorf("attempts = %d", rec.Attempts())
	}
	if err := Classify(context.Background(), "p", time.Second, &rec, errors.New("bad json")); domain.ErrorCode(err) != domain.CodeInternal {
		t.Errorf("after a retried 503 then a 200: %v (%s), want malformed", err, domain.ErrorCode(err))
	}
}

func TestMalformed(t *testing.T) {
	cause := errors.New("unexpected token")
	err := Malformed("p", cause)
	if err.Code != domain.CodeInternal || err.Message != "p: malformed response" || !errors.Is(err, cause) || Retryable(err) {
		t.Errorf("Malformed = %+v", err)
	}
}
