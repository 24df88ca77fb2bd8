package openclawimport

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-go/switchboard/internal/domain"
)

func TestImportConflictsWithStore(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join("testdata", "openclaw")
	const key = "agent:main:main"
	fixtureID := "0b0e8a41-6c1d-4c57-9a52-2b1f3f7f0001"
	tests := []struct {
		name string
		// change edits the store after a first import.
		change     func(tx domain.Tx) error
		wantReason string
		wantID     string // sessionId of the row afterwards
		wantMsgs   int    // messages of that generation afterwards
	}{
		{
			name: "store reset the session later",
			change: func(tx domain.Tx) error {
				s, _ := tx.GetSession(key)
				s.SessionID, s.UpdatedAt = "reset-by-switchboard", s.UpdatedAt+1000
				return tx.PutSession(s)
			},
			wantReason: reasonSessionIDDiffer, wantID: "reset-by-switchboard", wantMsgs: 0,
		},
		{
			name: "OpenClaw reset the session later",
			change: func(tx domain.Tx) error {
				s, _ := tx.GetSession(key)
				s.SessionID, s.UpdatedAt = "older-generation", 1
				return tx.PutSession(s)
			},
			wantID: fixtureID, wantMsgs: 4,
		},
		{
			name: "switchboard went on with the session",
			change: func(tx domain.Tx) error {
				_, err := tx.AppendMessages(key, fixtureID, []domain.Message{{Role: domain.RoleUser, Content: domain.TextContent("later"), Timestamp: 2}})
				return err
			},
			wantReason: reasonStoreAhead, wantID: fixtureID, wantMsgs: 5,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := openStore(t)
			if _, err := Import(ctx, st, dir, testOptions()); err != nil {
				t.Fatal(err)
			}
			if err := st.Update(ctx, tt.change); err != nil {
				t.Fatal(err)
			}
			sum, err := Import(ctx, st, dir, testOptions())
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantReason != "" && sum.Skipped[tt.wantReason] != 1 {
				t.Errorf("skipped = %v, want one %q", sum.Skipped, tt.wantReason)
			}
			if tt.wantReason == "" && sum.Sessions != 1 {
				t.Errorf("sessions written = %d, want 1 (%v)", sum.Sessions, sum.Skipped)
			}
			row, err := st.GetSession(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			msgs, err := st.ReadMessages(ctx, key, domain.MessageQuery{SessionID: row.SessionID})
			if err != nil {
				t.Fatal(err)
			}
			if row.SessionID != tt.wantID || len(msgs) != tt.wantMsgs {
				t.Errorf("row sessionId %s with %d messages, want %s with %d", row.SessionID, len(msgs), tt.wantID, tt.wantMsgs)
			}
		})
	}
}

// rejectingStore refuses to store one session key, the way a store with a
// constraint violation would.
type rejectingStore struct {
	domain.Store
	bad string
}

func (s rejectingStore) Update(ctx context.Context, fn func(domain.Tx) error) error {
	return s.Store.Update(ctx, func(tx domain.Tx) error { return fn(rejectingTx{tx, s.bad}) })
}

type rejectingTx struct {
	domain.Tx
	bad string
}

func (tx rejectingTx) AppendMessages(key, sessionID string, msgs []domain.Message) ([]domain.Message, error) {
	if key == tx.bad {
		return nil, domain.ErrConflict
	}
	return tx.Tx.AppendMessages(key, sessionID, msgs)
}

func TestImportStoreRejectsOneSession(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	const bad = "agent:main:discord:group:123"
	sum, err := Import(ctx, rejectingStore{st, bad}, filepath.Join("testdata", "openclaw"), testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Sessions != 5 || sum.Skipped[reasonStoreRejected] != 1 {
		t.Errorf("summary = %+v", sum)
	}
	// The rejected session left nothing behind, not even its row; the
	// others of its batch are all there.
	if _, err := st.GetSession(ctx, bad); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("rejected session: %v", err)
	}
	rows, err := st.ListSessions(ctx, domain.SessionQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 5 {
		t.Errorf("%d rows, want 5", len(rows))
	}
}

func TestImportCancelled(t *testing.T) {
	st := openStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var calls []int
	opts := testOptions()
	opts.BatchSize = 1
	opts.Progress = func(done, total int) {
		calls = append(calls, done)
		cancel()
	}
	_, err := Import(ctx, st, filepath.Join("testdata", "openclaw"), opts)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if diff := cmp.Diff([]int{1}, calls); diff != "" {
		t.Errorf("progress after cancel (-want +got):\n%s", diff)
	}
	n, err := st.CountSessions(context.Background(), domain.SessionQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("%d sessions written, want the 1 before the cancel", n)
	}
}

// plainStore hides the store's MessagePreparer, so the import appends
// with AppendMessages on the writer, as for a store without one.
type plainStore struct{ domain.Store }

// TestImportPreparedMatchesPlain imports the fixture through the prepared
// path (the SQLite store prepares bodies and index text on the planning
// workers) and through plain AppendMessages: the stores must hold the
// same rows and messages, ids aside (each generation's ids are salted at
// random).
func TestImportPreparedMatchesPlain(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join("testdata", "openclaw")
	prepared, plain := openStore(t), openStore(t)
	if _, ok := domain.Store(prepared).(domain.MessagePreparer); !ok {
		t.Fatal("the SQLite store is not a domain.MessagePreparer; this test compares nothing")
	}
	if _, ok := domain.Store(plainStore{plain}).(domain.MessagePreparer); ok {
		t.Fatal("plainStore still prepares")
	}
	sumA, err := Import(ctx, prepared, dir, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	sumB, err := Import(ctx, plainStore{plain}, dir, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sumB, sumA, cmp.AllowUnexported(Summary{})); diff != "" {
		t.Errorf("summary (-plain +prepared):\n%s", diff)
	}
	if sumA.Messages == 0 {
		t.Fatal("the fixture imported no messages")
	}
	noIDs := cmp.Transformer("noIDs", func(m domain.Message) domain.Message {
		m.ID, m.ParentID = "", ""
		return m
	})
	if diff := cmp.Diff(snapshot(t, plain), snapshot(t, prepared), noIDs, cmp.AllowUnexported(domain.Content{})); diff != "" {
		t.Errorf("stores differ (-plain +prepared):\n%s", diff)
	}
}
