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
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/sqlite"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var t0 = time.UnixMilli(1_700_000_000_000)

func openStore(t *testing.T) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "switchboard.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func enqueue(t *testing.T, st *sqlite.Store, it domain.OutboxItem) domain.OutboxItem {
	t.Helper()
	var stored domain.OutboxItem
	if err := st.Update(context.Background(), func(tx domain.Tx) error {
		var err error
		stored, _, err = tx.EnqueueOutbox(it)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return stored
}

func TestBackoff(t *testing.T) {
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second,
		32 * time.Second, 64 * time.Second, 64 * time.Second, 64 * time.Second}
	for i, w := range want {
		if got := Backoff(i + 1); got != w {
			t.Errorf("Backoff(%d) = %s, want %s", i+1, got, w)
		}
	}
}

// One pass records each due item's outcome: delivered, retried with
// backoff, or failed (permanent error, budget spent, unknown kind); items
// not due yet are left alone.
func TestRunOnce(t *testing.T) {
	errTransient := errors.New("try later")
	by := func(err error) Deliverer {
		return DelivererFunc(func(context.Context, domain.OutboxItem) error { return err })
	}
	tests := []struct {
		name      string
		kind      domain.OutboxKind
		attempts  int
		due       int64
		status    domain.OutboxStatus
		next      int64 // NextAttemptAt after the pass
		lastError string
		result    Result
	}{
		{"delivered", "ok", 0, 0, domain.OutboxDelivered, 0, "", Result{Delivered: 1}},
		{"transient: retried in 1s", "transient", 0, 0, domain.OutboxPending, 1_000, "try later", Result{Retried: 1}},
		{"transient, 6th attempt: retried in 64s", "transient", 6, 0, domain.OutboxPending, 64_000, "try later", Result{Retried: 1}},
		{"transient, 8th attempt: failed", "transient", 7, 0, domain.OutboxFailed, 0, "try later", Result{Failed: 1}},
		{"permanent: failed at once", "permanent", 0, 0, domain.OutboxFailed, 0, "permanent delivery failure: no", Result{Failed: 1}},
		{"unknown kind: failed", "nope", 0, 0, domain.OutboxFailed, 0, `permanent delivery failure: unknown outbox kind "nope"`, Result{Failed: 1}},
		{"not due yet: untouched", "ok", 0, 5_000, domain.OutboxPending, 5_000, "", Result{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := openStore(t)
			var events []domain.Event
			w, err := New(Config{Store: st, Now: func() time.Time { return t0 },
				Publish: func(ev domain.Event) { events = append(events, ev) },
				Deliverers: map[domain.OutboxKind]Deliverer{"ok": by(nil), "transient": by(errTransient),
					"permanent": by(Permanent(errors.New("no")))}})
			if err != nil {
				t.Fatal(err)
			}
			it := enqueue(t, st, domain.OutboxItem{IdempotencyKey: "k", Kind: tt.kind, SessionKey: "agent:main:main",
				Status: domain.OutboxPending, Attempts: tt.attempts, NextAttemptAt: t0.UnixMilli() + tt.due, Payload: json.RawMessage(`{}`)})
			res := w.RunOnce(context.Background())
			if d := cmp.Diff(tt.result, res); d != "" {
				t.Errorf("result (-want +got):\n%s", d)
			}
			rows, err := st.ListOutbox(context.Background(), domain.OutboxQuery{})
			if err != nil || len(rows) != 1 {
				t.Fatalf("rows = %v, %v", rows, err)
			}
			got := rows[0]
			if got.Status != tt.status || got.LastError != tt.lastError {
				t.Errorf("row = %s %q, want %s %q", got.Status, got.LastError, tt.status, tt.lastError)
			}
			if got.Status == domain.OutboxPending && got.NextAttemptAt != t0.UnixMilli()+tt.next {
				t.Errorf("next attempt in %dms, want %dms", got.NextAttemptAt-t0.UnixMilli(), tt.next)
			}
			recorded := tt.result != Result{}
			if recorded && (got.Attempts != it.Attempts+1 || len(events) != 1 || events[0].Kind != domain.EventOutbox) {
				t.Errorf("attempts = %d, events = %v", got.Attempts, events)
			}
			if !recorded && (got.Attempts != it.Attempts || len(events) != 0) {
				t.Errorf("an item not due was attempted: %+v, events %v", got, events)
			}
		})
	}
}

// Passes counts the passes that ran to their end: not one the stop cut
// short, nor one whose listing failed.
func TestPassesCountsFinishedPasses(t *testing.T) {
	st := openStore(t)
	w, err := New(Config{Store: st, Deliverers: map[domain.OutboxKind]Deliverer{
		"ok": DelivererFunc(func(context.Context, domain.OutboxItem) error { return nil })}})
	if err != nil {
		t.Fatal(err)
	}
	w.RunOnce(context.Background())
	w.RunOnce(context.Background())
	if n := w.Passes(); n != 2 {
		t.Fatalf("passes after two = %d", n)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	w.RunOnce(cancelled)
	if n := w.Passes(); n != 2 {
		t.Fatalf("passes after one cut short = %d, want 2", n)
	}
	st.Close()
	if res := w.RunOnce(context.Background()); res.Err == nil {
		t.Fatal("a pass on a closed store listed nothing without an error")
	}
	if n := w.Passes(); n != 2 {
		t.Fatalf("passes after one whose listing failed = %d, want 2", n)
	}
}

// A pass goes on batch after batch until no due item is left.
func TestRunOnceBatches(t *testing.T) {
	st := openStore(t)
	w, err := New(Config{Store: st, Now: func() time.Time { return t0 }, BatchSize: 2,
		Deliverers: map[domain.OutboxKind]Deliverer{domain.OutboxDelivery: Local{}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		enqueue(t, st, domain.OutboxItem{IdempotencyKey: k, Kind: domain.OutboxDelivery, Status: domain.OutboxPending, NextAttemptAt: t0.UnixMilli()})
	}
	if res := w.RunOnce(context.Background()); res.Delivered != 5 {
		t.Fatalf("result = %+v, want 5 delivered", res)
	}
}

func TestWebhook(t *testing.T) {
	tests := []struct {
		name      string
		status    int
		payload   string
		permanent bool
		ok        bool
	}{
		{"2xx delivers", 204, `{"text":"hi"}`, false, true},
		{"429 retries", 429, `{"text":"hi"}`, false, false},
		{"5xx retries", 503, `{"text":"hi"}`, false, false},
		{"4xx fails", 400, `{"text":"hi"}`, true, false},
		{"undecodable payload fails", 204, `"x`, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got struct {
				header string
				body   map[string]any
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got.header = r.Header.Get("Idempotency-Key")
				b, _ := io.ReadAll(r.Body)
				_ = json.Unmarshal(b, &got.body)
				w.WriteHeader(tt.status)
			}))
			defer srv.Close()
			err := Webhook{URL: srv.URL, Client: srv.Client()}.Deliver(context.Background(), domain.OutboxItem{
				IdempotencyKey: "announce:r1", SessionKey: "agent:main:main", Channel: "hook", To: "x", Payload: json.RawMessage(tt.payload)})
			if (err == nil) != tt.ok || errors.Is(err, ErrPermanent) != tt.permanent {
				t.Fatalf("err = %v, want ok=%v permanent=%v", err, tt.ok, tt.permanent)
			}
			if tt.payload[0] == '"' {
				return
			}
			want := map[string]any{"idempotencyKey": "announce:r1", "sessionKey": "agent:main:main", "channel": "hook", "to": "x", "message": "hi"}
			if got.header != "announce:r1" || !cmp.Equal(got.body, want) {
				t.Errorf("posted %q %v", got.header, got.body)
			}
		})
	}
}

// Channels picks a deliverer per channel kind, after its check.
func TestChannels(t *testing.T) {
	posted := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { posted++ }))
	defer srv.Close()
	c := Channels{Webhooks: map[string]string{"hook": srv.URL}, Client: srv.Client(),
		Check: func(_ context.Context, it domain.OutboxItem) error {
			if it.SessionKey == "denied" {
				return Permanent(errors.New("send blocked"))
			}
			return nil
		}}
	if _, ok := c.For("hook").(Webhook); !ok {
		t.Error("channel with a webhook URL is not delivered by Webhook")
	}
	for _, ch := range []string{"webchat", "internal", "unknown", ""} {
		if _, ok := c.For(ch).(Local); !ok {
			t.Errorf("channel %q is not local", ch)
		}
	}
	ctx := context.Background()
	if err := c.Deliver(ctx, domain.OutboxItem{Channel: "webchat", Payload: json.RawMessage(`{"text":"x"}`)}); err != nil || posted != 0 {
		t.Errorf("local delivery: %v, posted %d", err, posted)
	}
	if err := c.Deliver(ctx, domain.OutboxItem{Channel: "hook", Payload: json.RawMessage(`{"text":"x"}`)}); err != nil || posted != 1 {
		t.Errorf("webhook delivery: %v, posted %d", err, posted)
	}
	err := c.Deliver(ctx, domain.OutboxItem{SessionKey: "denied", Channel: "hook", Payload: json.RawMessage(`{"text":"x"}`)})
	if !errors.Is(err, ErrPermanent) || !strings.Contains(err.Error(), "send blocked") || posted != 1 {
		t.Errorf("refused delivery: %v, posted %d", err, posted)
	}
}

// Started, the worker delivers what is due and, poked, what was queued
// since; Stop waits for it.
func TestStartPokeStop(t *testing.T) {
	st := openStore(t)
	events := make(chan domain.Event, 8)
	w, err := New(Config{Store: st, Interval: time.Hour, Publish: func(ev domain.Event) { events <- ev },
		Deliverers: map[domain.OutboxKind]Deliverer{domain.OutboxDelivery: Local{}}})
	if err != nil {
		t.Fatal(err)
	}
	wait := func(key string) {
		t.Helper()
		select {
		case ev := <-events:
			if ev.Outbox == nil || ev.Outbox.IdempotencyKey != key || ev.Outbox.Status != domain.OutboxDelivered {
				t.Fatalf("event = %+v", ev)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s was not delivered", key)
		}
	}
	enqueue(t, st, domain.OutboxItem{IdempotencyKey: "first", Kind: domain.OutboxDelivery, Status: domain.OutboxPending})
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	wait("first")
	enqueue(t, st, domain.OutboxItem{IdempotencyKey: "second", Kind: domain.OutboxDelivery, Status: domain.OutboxPending})
	w.Poke()
	wait("second")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := w.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if err := w.Start(); err == nil {
		t.Error("a stopped worker started again")
	}
}

func TestConfigValidation(t *testing.T) {
	if _, err := New(Config{Deliverers: map[domain.OutboxKind]Deliverer{"x": Local{}}}); err == nil {
		t.Error("no store accepted")
	}
	if _, err := New(Config{Store: openStore(t)}); err == nil {
		t.Error("no deliverers accepted")
	}
}

// A delivery in flight when Stop begins: one the stop cuts short stays
// pending for the next start; one that completes anyway is recorded, so
// the next start does not send it again.
func TestStopDuringDelivery(t *testing.T) {
	for _, tc := range []struct {
		name    string
		outcome error
		want    domain.OutboxStatus
	}{
		{"completed as the stop began", nil, domain.OutboxDelivered},
		{"cut short by the stop", context.Canceled, domain.OutboxPending},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := openStore(t)
			started := make(chan struct{})
			deliver := DelivererFunc(func(ctx context.Context, _ domain.OutboxItem) error {
				close(started)
				<-ctx.Done() // the stop
				return tc.outcome
			})
			w, err := New(Config{Store: st, Interval: time.Hour, Deliverers: map[domain.OutboxKind]Deliverer{domain.OutboxDelivery: deliver}})
			if err != nil {
				t.Fatal(err)
			}
			it := enqueue(t, st, domain.OutboxItem{IdempotencyKey: "in-flight", Kind: domain.OutboxDelivery, Status: domain.OutboxPending})
			if err := w.Start(); err != nil {
				t.Fatal(err)
			}
			select {
			case <-started:
			case <-time.After(10 * time.Second):
				t.Fatal("the delivery did not start")
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := w.Stop(ctx); err != nil {
				t.Fatal(err)
			}
			rows, err := st.ListOutbox(ctx, domain.OutboxQuery{})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				if r.ID == it.ID && r.Status != tc.want {
					t.Fatalf("item after the stop: %s (attempts %d), want %s", r.Status, r.Attempts, tc.want)
				}
			}
		})
	}
}
