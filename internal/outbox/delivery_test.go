package outbox

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/sqlite"
)

// inProcess is an http.RoundTripper that serves requests with a handler in
// the calling goroutine: no sockets, so it runs inside a synctest bubble
// (a goroutine blocked on network I/O is not durably blocked, and the
// bubble's clock would never advance).
type inProcess struct{ h http.Handler }

func (p inProcess) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	p.h.ServeHTTP(rec, r)
	return rec.Result(), nil
}

// hookCall is one request a webhook receiver saw.
type hookCall struct {
	at          time.Time
	method      string
	contentType string
	key         string
	body        map[string]any
}

// hook is a webhook receiver answering statuses in order (the last one
// repeats), recording every request.
type hook struct {
	mu       sync.Mutex
	statuses []int
	calls    []hookCall
}

func (h *hook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	c := hookCall{at: time.Now(), method: r.Method, contentType: r.Header.Get("Content-Type"), key: r.Header.Get("Idempotency-Key")}
	_ = json.Unmarshal(b, &c.body)
	h.mu.Lock()
	defer h.mu.Unlock()
	status := h.statuses[min(len(h.calls), len(h.statuses)-1)]
	h.calls = append(h.calls, c)
	w.WriteHeader(status)
}

func (h *hook) seen() []hookCall {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]hookCall(nil), h.calls...)
}

// TestWebhookRetrySchedule runs the started worker (real store, webhook
// channel) in a synctest bubble: a receiver answering 429 and 5xx is
// retried after 1 s, 2 s, 4 s … 64 s (docs/design.md#durability), each attempt a
// JSON POST with the same Idempotency-Key; after the 8th failed attempt
// the item is failed with the last error, and never tried again. A
// receiver that recovers gets the message once, then no more attempts.
func TestWebhookRetrySchedule(t *testing.T) {
	wantGaps := []time.Duration{1, 2, 4, 8, 16, 32, 64} // seconds between attempts
	tests := []struct {
		name     string
		statuses []int
		attempts int
		status   domain.OutboxStatus
		lastErr  string
	}{
		{"429 then 5xx: failed after 8 attempts", []int{429, 500, 502, 503}, 8, domain.OutboxFailed, "webhook hook: 503 Service Unavailable"},
		{"429, 503, then 200: delivered on the 3rd", []int{429, 503, 200}, 3, domain.OutboxDelivered, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := context.Background()
				st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "switchboard.db"), sqlite.Options{})
				if err != nil {
					t.Fatal(err)
				}
				defer st.Close()
				h := &hook{statuses: tt.statuses}
				ch := Channels{Webhooks: map[string]string{"hook": "http://hook.invalid/in"}, Client: &http.Client{Transport: inProcess{h}}}
				var evMu sync.Mutex
				var events []domain.OutboxItem
				w, err := New(Config{Store: st, Interval: 100 * time.Millisecond,
					Publish: func(ev domain.Event) {
						evMu.Lock()
						defer evMu.Unlock()
						events = append(events, *ev.Outbox)
					},
					Deliverers: map[domain.OutboxKind]Deliverer{domain.OutboxDelivery: ch}})
				if err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				enqueue(t, st, domain.OutboxItem{IdempotencyKey: "send:k1", Kind: domain.OutboxDelivery, SessionKey: "agent:main:main",
					Channel: "hook", To: "ops", Status: domain.OutboxPending, NextAttemptAt: start.UnixMilli(), Payload: json.RawMessage(`{"text":"hi"}`)})
				if err := w.Start(); err != nil {
					t.Fatal(err)
				}
				// Far past the last retry: whatever the worker would still
				// do, it does in this window.
				time.Sleep(10 * time.Minute)
				synctest.Wait()
				if err := w.Stop(ctx); err != nil {
					t.Fatal(err)
				}

				calls := h.seen()
				if len(calls) != tt.attempts {
					t.Fatalf("receiver saw %d requests, want %d", len(calls), tt.attempts)
				}
				for i, c := range calls {
					if c.method != http.MethodPost || c.contentType != "application/json" || c.key != "send:k1" ||
						c.body["message"] != "hi" || c.body["idempotencyKey"] != "send:k1" || c.body["channel"] != "hook" || c.body["to"] != "ops" {
						t.Errorf("request %d = %+v", i+1, c)
					}
					if i == 0 {
						if d := c.at.Sub(start); d > 0 {
							t.Errorf("first attempt after %s, want at once", d)
						}
						continue
					}
					// The worker looks every Interval, so an attempt comes at
					// most one Interval after it is due.
					gap, want := c.at.Sub(calls[i-1].at), wantGaps[i-1]*time.Second
					if gap < want || gap > want+100*time.Millisecond {
						t.Errorf("attempt %d came %s after the previous one, want %s", i+1, gap, want)
					}
				}
				rows, err := st.ListOutbox(ctx, domain.OutboxQuery{})
				if err != nil || len(rows) != 1 {
					t.Fatalf("rows = %v, %v", rows, err)
				}
				if r := rows[0]; r.Status != tt.status || r.Attempts != tt.attempts || r.LastError != tt.lastErr {
					t.Errorf("row = %s after %d attempts, error %q; want %s after %d, %q", r.Status, r.Attempts, r.LastError, tt.status, tt.attempts, tt.lastErr)
				}
				evMu.Lock()
				defer evMu.Unlock()
				if len(events) != tt.attempts || events[len(events)-1].Status != tt.status {
					t.Errorf("%d outbox events, last %+v; want %d ending %s", len(events), events[len(events)-1], tt.attempts, tt.status)
				}
			})
		})
	}
}

// The send policy is asked again at delivery: an item it now refuses is
// failed with the policy's reason and nothing is posted.
func TestPolicyDenyAtDelivery(t *testing.T) {
	var posts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { posts.Add(1) }))
	defer srv.Close()
	st := openStore(t)
	deny := Channels{Webhooks: map[string]string{"hook": srv.URL}, Client: srv.Client(),
		Check: func(context.Context, domain.OutboxItem) error {
			return Permanent(errors.New("send blocked by session policy (rule 1 denies)"))
		}}
	w, err := New(Config{Store: st, Now: func() time.Time { return t0 }, Deliverers: map[domain.OutboxKind]Deliverer{domain.OutboxDelivery: deny}})
	if err != nil {
		t.Fatal(err)
	}
	enqueue(t, st, domain.OutboxItem{IdempotencyKey: "send:k", Kind: domain.OutboxDelivery, SessionKey: "agent:main:main",
		Channel: "hook", Status: domain.OutboxPending, NextAttemptAt: t0.UnixMilli(), Payload: json.RawMessage(`{"text":"x"}`)})
	if res := w.RunOnce(context.Background()); res.Failed != 1 {
		t.Fatalf("result = %+v, want 1 failed", res)
	}
	rows, err := st.ListOutbox(context.Background(), domain.OutboxQuery{Statuses: []domain.OutboxStatus{domain.OutboxFailed}})
	if err != nil || len(rows) != 1 {
		t.Fatalf("failed rows = %v, %v", rows, err)
	}
	if r := rows[0]; r.Attempts != 1 || !strings.Contains(r.LastError, "send blocked by session policy (rule 1 denies)") {
		t.Errorf("row = %d attempts, error %q", r.Attempts, r.LastError)
	}
	if n := posts.Load(); n != 0 {
		t.Errorf("a refused item was posted %d times", n)
	}
}

// A delivery that succeeded is recorded and never repeated: reopen the
// store, run a new worker (a pass and a started one), and the receiver
// still saw one POST.
func TestNoRepeatAfterRestart(t *testing.T) {
	var posts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { posts.Add(1) }))
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "switchboard.db")
	ctx := context.Background()
	worker := func(st *sqlite.Store, events chan domain.Event) *Worker {
		t.Helper()
		w, err := New(Config{Store: st, Interval: time.Hour,
			Publish: func(ev domain.Event) {
				if events != nil {
					events <- ev
				}
			},
			Deliverers: map[domain.OutboxKind]Deliverer{domain.OutboxDelivery: Channels{Webhooks: map[string]string{"hook": srv.URL}, Client: srv.Client()}}})
		if err != nil {
			t.Fatal(err)
		}
		return w
	}

	st, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	enqueue(t, st, domain.OutboxItem{IdempotencyKey: "send:once", Kind: domain.OutboxDelivery, SessionKey: "agent:main:main",
		Channel: "hook", Status: domain.OutboxPending, Payload: json.RawMessage(`{"text":"once"}`)})
	if res := worker(st, nil).RunOnce(ctx); res.Delivered != 1 || posts.Load() != 1 {
		t.Fatalf("first run: %+v, %d posts", res, posts.Load())
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	st, err = sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if res := worker(st, nil).RunOnce(ctx); res != (Result{}) {
		t.Errorf("after restart a pass did %+v", res)
	}
	// A started worker: a marker item queued after the delivered one is
	// delivered by the same pass that would repeat it, so its event ends
	// the wait.
	events := make(chan domain.Event, 8)
	w := worker(st, events)
	enqueue(t, st, domain.OutboxItem{IdempotencyKey: "marker", Kind: domain.OutboxDelivery, SessionKey: "agent:main:main",
		Channel: "webchat", Status: domain.OutboxPending, Payload: json.RawMessage(`{"text":"m"}`)})
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-events:
		if ev.Outbox.IdempotencyKey != "marker" {
			t.Errorf("after restart the worker attempted %+v", ev.Outbox)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the restarted worker delivered nothing")
	}
	stopCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := w.Stop(stopCtx); err != nil {
		t.Fatal(err)
	}
	if n := posts.Load(); n != 1 {
		t.Errorf("receiver saw %d POSTs, want 1", n)
	}
	rows, err := st.ListOutbox(ctx, domain.OutboxQuery{Statuses: []domain.OutboxStatus{domain.OutboxDelivered}})
	if err != nil || len(rows) != 2 || rows[0].Attempts != 1 {
		t.Errorf("delivered rows = %+v, %v", rows, err)
	}
}
