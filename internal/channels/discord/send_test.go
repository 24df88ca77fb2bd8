package discord

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeREST records message posts; answer decides each one's status.
type fakeREST struct {
	mu     sync.Mutex
	posts  []map[string]any
	answer func(n int, w http.ResponseWriter) bool // true: answered
}

func (f *fakeREST) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bot tok" {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/api/v10/users/@me/channels":
		_, _ = io.WriteString(w, `{"id":"135000000000000777","type":1}`)
		return
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/messages"):
	default:
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"code":0,"message":"404: Not Found"}`)
		return
	}
	var body map[string]any
	_ = json.NewDecoder(r.Body).Decode(&body)
	f.mu.Lock()
	n := len(f.posts)
	f.posts = append(f.posts, body)
	f.mu.Unlock()
	if f.answer != nil && f.answer(n, w) {
		return
	}
	w.Header().Set("X-RateLimit-Bucket", "b")
	w.Header().Set("X-RateLimit-Remaining", "5")
	w.Header().Set("X-RateLimit-Reset-After", "1")
	_, _ = io.WriteString(w, `{"id":"13500000000000090`+string(rune('0'+n%10))+`","channel_id":"135000000000000010","author":{"id":"1","username":"bot"},"content":"x"}`)
}

func TestSendSplitsWithNonceAndNoMentions(t *testing.T) {
	f := &fakeREST{}
	srv := httptest.NewServer(f)
	defer srv.Close()
	s := NewSender("tok", srv.URL+"/api", srv.Client(), nil)
	defer s.Close(context.Background())
	text := strings.Repeat("a ", 1500) // 3,000 characters
	ids, err := s.Send(context.Background(), "channel:135000000000000010", text, "idem-1")
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 2 || len(f.posts) != 2 {
		t.Fatalf("ids %v, posts %d; want 2 of each", ids, len(f.posts))
	}
	for i, p := range f.posts {
		if p["nonce"] != Nonce("idem-1", i) || p["enforce_nonce"] != true {
			t.Errorf("post %d: nonce %v enforce_nonce %v", i, p["nonce"], p["enforce_nonce"])
		}
		am, _ := json.Marshal(p["allowed_mentions"])
		if string(am) != `{"parse":[],"replied_user":false,"roles":[],"users":[]}` {
			t.Errorf("post %d: allowed_mentions %s", i, am)
		}
		if c, _ := p["content"].(string); len(c) > MaxMessageChars {
			t.Errorf("post %d: %d characters", i, len(c))
		}
	}
}

func TestSendDMOpensChannel(t *testing.T) {
	f := &fakeREST{}
	srv := httptest.NewServer(f)
	defer srv.Close()
	s := NewSender("tok", srv.URL+"/api", srv.Client(), nil)
	defer s.Close(context.Background())
	if _, err := s.Send(context.Background(), "user:135000000000000200", "hi", "k"); err != nil {
		t.Fatal(err)
	}
	if len(f.posts) != 1 {
		t.Fatalf("posts = %d", len(f.posts))
	}
}

func TestSendHonoursRetryAfter(t *testing.T) {
	f := &fakeREST{answer: func(n int, w http.ResponseWriter) bool {
		if n > 0 {
			return false
		}
		w.Header().Set("Retry-After", "0.25")
		w.Header().Set("X-RateLimit-Bucket", "b")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = io.WriteString(w, `{"message":"You are being rate limited.","retry_after":0.25,"global":false}`)
		return true
	}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	var waits []time.Duration
	l := newRateLimiter(nil, func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil })
	s := newSender("tok", srv.URL+"/api", srv.Client(), nil, l)
	defer s.Close(context.Background())
	if _, err := s.Send(context.Background(), "channel:135000000000000010", "hello", "k"); err != nil {
		t.Fatal(err)
	}
	if len(f.posts) != 2 || f.posts[0]["nonce"] != f.posts[1]["nonce"] {
		t.Fatalf("posts %d (want the refused one and one retry with the same nonce)", len(f.posts))
	}
	if len(waits) != 1 || waits[0] < 200*time.Millisecond || waits[0] > 250*time.Millisecond {
		t.Fatalf("waits = %v, want one of ~250ms", waits)
	}
	if s.RateLimited() != 1 {
		t.Errorf("RateLimited = %d", s.RateLimited())
	}
}

func TestSendLongRetryAfterEndsTheAttempt(t *testing.T) {
	f := &fakeREST{answer: func(n int, w http.ResponseWriter) bool {
		w.Header().Set("Retry-After", "120")
		w.Header().Set("X-RateLimit-Global", "true")
		w.WriteHeader(http.StatusTooManyRequests)
		return true
	}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	s := NewSender("tok", srv.URL+"/api", srv.Client(), nil)
	defer s.Close(context.Background())
	_, err := s.Send(context.Background(), "channel:135000000000000010", "hello", "k")
	var ra *RetryAfterError
	if !errors.As(err, &ra) || ra.After < 100*time.Second {
		t.Fatalf("err = %v, want a RetryAfterError of ~120s", err)
	}
	if Permanent(err) {
		t.Error("a rate limit is not permanent")
	}
}

func TestSendPermanentErrors(t *testing.T) {
	f := &fakeREST{}
	srv := httptest.NewServer(f)
	defer srv.Close()
	bad := NewSender("wrong", srv.URL+"/api", srv.Client(), nil)
	defer bad.Close(context.Background())
	if _, err := bad.Send(context.Background(), "channel:135000000000000010", "x", "k"); !Permanent(err) {
		t.Errorf("refused token: %v, want permanent", err)
	}
	if _, err := bad.Send(context.Background(), "room:1", "x", "k"); !Permanent(err) || !errors.Is(err, ErrBadTarget) {
		t.Errorf("bad target: %v", err)
	}
}
