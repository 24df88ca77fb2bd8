package outbox

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestWiredCleanupArchives: a cleanup item archives its session once
// (a second item keeps the first time), tells Archived of each, and a
// cleanup of a session that is gone is delivered without a row appearing.
func TestWiredCleanupArchives(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	const key = "agent:main:subagent:x"
	if err := st.Update(ctx, func(tx domain.Tx) error {
		return tx.PutSession(domain.Session{Key: key, SessionID: "s1", AgentID: "main", Kind: "direct", UpdatedAt: 1})
	}); err != nil {
		t.Fatal(err)
	}
	var archived []string
	clock := t0
	w, err := Wire(Wiring{Store: st, Archived: func(k string) { archived = append(archived, k) }, Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range []string{key, key, "agent:main:gone"} {
		enqueue(t, st, domain.OutboxItem{IdempotencyKey: "cleanup-" + string(rune('a'+i)), Kind: domain.OutboxCleanup, SessionKey: k, Payload: []byte(`{}`), CreatedAt: t0.UnixMilli()})
		if res := w.RunOnce(ctx); res.Delivered != 1 {
			t.Fatalf("item %d (%s): %+v, want delivered", i, k, res)
		}
		clock = clock.Add(time.Second)
	}
	s, err := st.GetSession(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if s.ArchivedAt != t0.UnixMilli() {
		t.Fatalf("archivedAt %d, want %d (the first cleanup's time)", s.ArchivedAt, t0.UnixMilli())
	}
	if _, err := st.GetSession(ctx, "agent:main:gone"); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("cleanup of a gone session: GetSession error %v, want not found", err)
	}
	if len(archived) != 3 || archived[0] != key || archived[2] != "agent:main:gone" {
		t.Fatalf("Archived told of %v", archived)
	}
}
