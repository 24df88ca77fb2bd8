package telegram

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// countingBody is a request body of n bytes that counts what is read.
type countingBody struct {
	left int64
	read atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, io.EOF
	}
	n := int64(len(p))
	if n > b.left {
		n = b.left
	}
	for i := range p[:n] {
		p[i] = 'x'
	}
	b.left -= n
	b.read.Add(n)
	return int(n), nil
}

func (b *countingBody) Close() error { return nil }

// TestWebhookBodyLimit: a webhook body over maxUpdateBytes is refused with
// 413 naming the limit — before a byte is read when its length is
// declared, after at most the limit when it is not.
func TestWebhookBodyLimit(t *testing.T) {
	h := (&Adapter{}).webhookHandler(t.Context(), nil, nil, "s3cret")
	const size = 24 << 20
	for _, declared := range []bool{true, false} {
		body := &countingBody{left: size}
		req := httptest.NewRequest(http.MethodPost, "/telegram", body)
		req.ContentLength = -1
		if declared {
			req.ContentLength = size
		}
		req.Header.Set(secretHeader, "s3cret")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusRequestEntityTooLarge || !strings.Contains(rec.Body.String(), "max 1048576 bytes") {
			t.Errorf("declared %v: %d %q, want 413 naming the limit", declared, rec.Code, rec.Body.String())
		}
		limit := int64(0)
		if !declared {
			limit = maxUpdateBytes + 1
		}
		if got := body.read.Load(); got > limit {
			t.Errorf("declared %v: %d bytes read, want at most %d", declared, got, limit)
		}
	}
}
