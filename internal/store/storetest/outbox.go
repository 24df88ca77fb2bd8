package storetest

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// fullOutbox sets every field of OutboxItem but ID, which the store assigns.
func fullOutbox(key string) domain.OutboxItem {
	return domain.OutboxItem{
		IdempotencyKey: key,
		Kind:           domain.OutboxAnnounce,
		SessionKey:     "agent:main:discord:group:42",
		RunID:          "run-1",
		Channel:        "discord",
		To:             "channel:42",
		Payload:        json.RawMessage(`{"text":"hello ✓","attachments":[]}`),
		Status:         domain.OutboxPending,
		Attempts:       1,
		LastError:      "connection refused",
		NextAttemptAt:  1_700_000_000_100,
		CreatedAt:      1_700_000_000_000,
		DeliveredAt:    1_700_000_000_200,
	}
}

func enqueue(t *testing.T, st domain.Store, item domain.OutboxItem) (domain.OutboxItem, bool) {
	t.Helper()
	var stored domain.OutboxItem
	var created bool
	update(t, st, func(tx domain.Tx) error {
		var err error
		stored, created, err = tx.EnqueueOutbox(item)
		return err
	})
	return stored, created
}

func listOutbox(t *testing.T, st domain.Store, q domain.OutboxQuery) []domain.OutboxItem {
	t.Helper()
	items, err := st.ListOutbox(ctxT(t), q)
	if err != nil {
		t.Fatalf("ListOutbox(%+v): %v", q, err)
	}
	return items
}

func testOutboxEnqueue(t *testing.T, st domain.Store) {
	in := fullOutbox("announce:run-1")
	stored, created := enqueue(t, st, in)
	if !created {
		t.Error("EnqueueOutbox of a new key: created = false")
	}
	if stored.ID <= 0 {
		t.Errorf("assigned ID = %d, want > 0", stored.ID)
	}
	want := in
	want.ID = stored.ID
	requireAllFieldsSet(t, want)
	if d := diff(want, stored); d != "" {
		t.Errorf("EnqueueOutbox result (-want +got):\n%s", d)
	}
	if d := diff([]domain.OutboxItem{want}, listOutbox(t, st, domain.OutboxQuery{})); d != "" {
		t.Errorf("ListOutbox round trip (-want +got):\n%s", d)
	}

	dup := fullOutbox("announce:run-1")
	dup.Payload = json.RawMessage(`{"text":"second"}`)
	again, created := enqueue(t, st, dup)
	if created {
		t.Error("EnqueueOutbox of an existing key: created = true")
	}
	if d := diff(want, again); d != "" {
		t.Errorf("EnqueueOutbox of an existing key returns the existing row (-want +got):\n%s", d)
	}
	if n := len(listOutbox(t, st, domain.OutboxQuery{})); n != 1 {
		t.Errorf("rows after a duplicate enqueue = %d, want 1", n)
	}

	next, _ := enqueue(t, st, domain.OutboxItem{IdempotencyKey: "delivery:2", Kind: domain.OutboxDelivery, SessionKey: "agent:main:main"})
	if next.ID <= stored.ID {
		t.Errorf("second ID %d not after first %d", next.ID, stored.ID)
	}
	if next.Status != domain.OutboxPending {
		t.Errorf("empty Status stored as %q, want %q", next.Status, domain.OutboxPending)
	}
	err := st.Update(ctxT(t), func(tx domain.Tx) error {
		_, _, err := tx.EnqueueOutbox(domain.OutboxItem{Kind: domain.OutboxDelivery})
		return err
	})
	if err == nil {
		t.Error("EnqueueOutbox with an empty idempotency key: got nil error")
	}
}

func testOutboxPut(t *testing.T, st domain.Store) {
	item, _ := enqueue(t, st, fullOutbox("announce:run-1"))
	item.Status = domain.OutboxDelivered
	item.Attempts = 3
	item.LastError = ""
	item.NextAttemptAt = 0
	item.DeliveredAt = 1_700_000_009_000
	update(t, st, func(tx domain.Tx) error { return tx.PutOutbox(item) })
	if d := diff([]domain.OutboxItem{item}, listOutbox(t, st, domain.OutboxQuery{})); d != "" {
		t.Errorf("row after PutOutbox (-want +got):\n%s", d)
	}
	missing := item
	missing.ID = item.ID + 1000
	missing.IdempotencyKey = "other"
	err := st.Update(ctxT(t), func(tx domain.Tx) error { return tx.PutOutbox(missing) })
	requireErrorIs(t, err, domain.ErrNotFound, "PutOutbox of a missing ID")
}

func testListOutbox(t *testing.T, st domain.Store) {
	mk := func(key string, status domain.OutboxStatus, session, run string, next int64) domain.OutboxItem {
		return domain.OutboxItem{IdempotencyKey: key, Kind: domain.OutboxDelivery, Status: status, SessionKey: session,
			RunID: run, NextAttemptAt: next, Payload: json.RawMessage(`{}`)}
	}
	// Inserted out of NextAttemptAt order: the list is by age (ID), not due time.
	items := []domain.OutboxItem{
		mk("o1", domain.OutboxPending, "agent:main:main", "r1", 300),
		mk("o2", domain.OutboxPending, "agent:ops:main", "r2", 100),
		mk("o3", domain.OutboxDelivered, "agent:main:main", "r1", 50),
		mk("o4", domain.OutboxFailed, "agent:main:main", "r3", 200),
		mk("o5", domain.OutboxPending, "agent:main:main", "r3", 0),
	}
	update(t, st, func(tx domain.Tx) error {
		for _, it := range items {
			if _, _, err := tx.EnqueueOutbox(it); err != nil {
				return err
			}
		}
		return nil
	})
	tests := []struct {
		name string
		q    domain.OutboxQuery
		want []string
	}{
		{"All", domain.OutboxQuery{}, []string{"o1", "o2", "o3", "o4", "o5"}},
		{"Statuses", domain.OutboxQuery{Statuses: []domain.OutboxStatus{domain.OutboxPending, domain.OutboxFailed}}, []string{"o1", "o2", "o4", "o5"}},
		{"SessionKey", domain.OutboxQuery{SessionKey: "agent:ops:main"}, []string{"o2"}},
		{"RunID", domain.OutboxQuery{RunID: "r1"}, []string{"o1", "o3"}},
		{"DueBefore", domain.OutboxQuery{DueBefore: 200}, []string{"o2", "o3", "o4", "o5"}},
		{"DuePending", domain.OutboxQuery{Statuses: []domain.OutboxStatus{domain.OutboxPending}, DueBefore: 150}, []string{"o2", "o5"}},
		{"Limit", domain.OutboxQuery{Statuses: []domain.OutboxStatus{domain.OutboxPending}, Limit: 2}, []string{"o1", "o2"}},
		{"NoMatch", domain.OutboxQuery{RunID: "r9"}, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := listOutbox(t, st, tc.q)
			keys := make([]string, len(got))
			for i, it := range got {
				keys[i] = it.IdempotencyKey
			}
			if d := cmp.Diff(tc.want, keys); d != "" {
				t.Errorf("ListOutbox(%+v), oldest first (-want +got):\n%s", tc.q, d)
			}
		})
	}
	if _, err := st.ListOutbox(ctxT(t), domain.OutboxQuery{Limit: -1}); err == nil {
		t.Error("ListOutbox with limit -1: got nil error")
	}
}
