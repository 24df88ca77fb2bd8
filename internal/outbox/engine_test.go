package outbox_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/engine"
	"github.com/switchboard-go/switchboard/internal/model"
	"github.com/switchboard-go/switchboard/internal/store/sqlite"
	"github.com/switchboard-go/switchboard/internal/transcript"
)

// TestEngineRechecksSendPolicy goes through the engine's wiring: a
// message queued for a webhook channel while the session's send policy
// allowed it, whose session is then patched to sendPolicy=deny before the
// worker runs, is failed with the policy's reason (listed by the engine's
// Outbox, what `switchboard outbox list` prints) and never posted; an
// allowed one is posted once.
func TestEngineRechecksSendPolicy(t *testing.T) {
	var posts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Idempotency-Key") == "" {
			w.WriteHeader(http.StatusBadRequest)
		}
		posts.Add(1)
	}))
	defer srv.Close()

	dir := t.TempDir()
	ctx := context.Background()
	cfg := config.Default()
	cfg.Channels.Webhook = map[string]config.WebhookChannel{"hook": {URL: srv.URL}}
	models, err := model.NewRegistry(cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(ctx, filepath.Join(dir, "switchboard.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	eng, err := engine.New(engine.Options{Config: cfg, Store: st, Models: models, Mirror: transcript.New(dir, time.Now),
		StateDir: dir, HTTPClient: srv.Client(), MaintenanceInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	events, stop := eng.Subscribe(64)
	defer stop()
	if err := eng.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		if err := eng.Close(cctx); err != nil {
			t.Errorf("engine close: %v", err)
		}
	}()
	op := api.Operator()
	// waitOutbox waits for the attempt event of the item whose row id
	// (Deliver's MessageID) or idempotency key is key.
	waitOutbox := func(key string) domain.OutboxItem {
		t.Helper()
		deadline := time.After(15 * time.Second)
		for {
			select {
			case ev := <-events:
				if ev.Kind == domain.EventOutbox && (strconv.FormatInt(ev.Outbox.ID, 10) == key || ev.Outbox.IdempotencyKey == key) {
					return *ev.Outbox
				}
			case <-deadline:
				rows, err := st.ListOutbox(ctx, domain.OutboxQuery{})
				t.Fatalf("no outbox event for %s; rows %+v, %v", key, rows, err)
			}
		}
	}

	// Allowed: posted once, delivered.
	res, err := eng.Deliver(ctx, op, api.DeliverRequest{SessionKey: "agent:main:ok", Channel: "hook", To: "ops", Message: "hello", IdempotencyKey: "allowed"})
	if err != nil {
		t.Fatal(err)
	}
	if it := waitOutbox(res.MessageID); it.Status != domain.OutboxDelivered || posts.Load() != 1 {
		t.Fatalf("allowed item = %s (%q), %d posts", it.Status, it.LastError, posts.Load())
	}

	// Denied after queueing: the policy that refuses is the one at delivery.
	// The item is written straight to the store (as a queued message
	// waiting out a retry would be), then the session is patched to deny.
	if _, err := eng.Patch(ctx, op, api.PatchRequest{Key: "agent:main:quiet", SendPolicy: api.SetValue("allow")}); err != nil {
		t.Fatal(err)
	}
	res, err = eng.Deliver(ctx, op, api.DeliverRequest{SessionKey: "agent:main:quiet", Channel: "nohook", To: "ops", Message: "pre", IdempotencyKey: "pre"})
	if err != nil {
		t.Fatal(err)
	}
	waitOutbox(res.MessageID) // the session exists and accepts sends
	if err := st.Update(ctx, func(tx domain.Tx) error {
		_, _, err := tx.EnqueueOutbox(domain.OutboxItem{IdempotencyKey: "send:queued-then-denied", Kind: domain.OutboxDelivery,
			SessionKey: "agent:main:quiet", Channel: "hook", Payload: []byte(`{"text":"late"}`), Status: domain.OutboxPending,
			NextAttemptAt: time.Now().Add(time.Hour).UnixMilli(), CreatedAt: time.Now().UnixMilli()})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Patch(ctx, op, api.PatchRequest{Key: "agent:main:quiet", SendPolicy: api.SetValue("deny")}); err != nil {
		t.Fatal(err)
	}
	// Make it due now, then have the worker look (a Deliver pokes it; that
	// one is refused at queue time already, which is fine).
	items, err := st.ListOutbox(ctx, domain.OutboxQuery{Statuses: []domain.OutboxStatus{domain.OutboxPending}})
	if err != nil || len(items) != 1 || items[0].IdempotencyKey != "send:queued-then-denied" {
		t.Fatalf("pending items = %+v, %v", items, err)
	}
	items[0].NextAttemptAt = 0
	if err := st.Update(ctx, func(tx domain.Tx) error { return tx.PutOutbox(items[0]) }); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Deliver(ctx, op, api.DeliverRequest{SessionKey: "agent:main:ok", To: "ops", Message: "poke", IdempotencyKey: "poke"}); err != nil {
		t.Fatal(err)
	}
	it := waitOutbox("send:queued-then-denied")
	if it.Status != domain.OutboxFailed || !strings.Contains(it.LastError, "send blocked by session policy (denied by session override (sendPolicy=deny))") {
		t.Fatalf("denied item = %s %q", it.Status, it.LastError)
	}
	failed, err := eng.Outbox(ctx, op, api.OutboxRequest{Statuses: []domain.OutboxStatus{domain.OutboxFailed}})
	if err != nil || len(failed) != 1 || failed[0].IdempotencyKey != "send:queued-then-denied" || failed[0].LastError != it.LastError {
		t.Fatalf("failed items = %+v, %v", failed, err)
	}
	if n := posts.Load(); n != 1 {
		t.Errorf("webhook saw %d posts, want 1 (the denied item was posted)", n)
	}
}
