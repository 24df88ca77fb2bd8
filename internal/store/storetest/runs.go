package storetest

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// fullRun sets every field of Run.
func fullRun(id string) domain.Run {
	return domain.Run{
		ID:             id,
		SessionKey:     "agent:main:main",
		SessionID:      "s1",
		AgentID:        "main",
		Kind:           domain.RunKindSend,
		Lane:           domain.LaneNested,
		ParentRunID:    "run-parent",
		RequesterKey:   "agent:ops:main",
		IdempotencyKey: "idem-" + id,
		Status:         domain.RunRunning,
		Message:        "do the thing ✓",
		Reply:          "done",
		Error:          "partial failure",
		Usage: domain.Usage{Input: 1<<53 + 1, Output: 2, CacheRead: 3, CacheWrite: 4, TotalTokens: 5,
			Cost: &domain.Cost{Input: 0.1, Output: 0.2, CacheRead: 0.3, CacheWrite: 0.4, Total: 1.0000001}},
		Spec:      json.RawMessage(`{"timeoutSeconds":30,"provenance":{"kind":"inter_session"},"pingPong":[1,2]}`),
		Attempt:   2,
		TimeoutMs: 30_000,
		CreatedAt: 1_700_000_000_000,
		StartedAt: 1_700_000_000_001,
		EndedAt:   1_700_000_000_002,
		UpdatedAt: 1_700_000_000_003,
	}
}

func createRun(t *testing.T, st domain.Store, r domain.Run) (domain.Run, bool) {
	t.Helper()
	var stored domain.Run
	var created bool
	update(t, st, func(tx domain.Tx) error {
		var err error
		stored, created, err = tx.CreateRun(r)
		return err
	})
	return stored, created
}

func testRunRoundTrip(t *testing.T, st domain.Store) {
	ctx := ctxT(t)
	want := fullRun("run-1")
	// A run's trace id and link are read from its spec when it is shown.
	requireAllFieldsSet(t, want, "TraceID", "TraceURL")
	stored, created := createRun(t, st, want)
	if !created {
		t.Error("CreateRun of a new run: created = false")
	}
	if d := diff(want, stored); d != "" {
		t.Errorf("CreateRun result (-want +got):\n%s", d)
	}
	got, err := st.GetRun(ctx, want.ID)
	if err != nil {
		t.Fatalf("GetRun: %v", err)
	}
	if d := diff(want, got); d != "" {
		t.Errorf("GetRun round trip (-want +got):\n%s", d)
	}
	got, err = st.GetRunByIdempotencyKey(ctx, want.IdempotencyKey)
	if err != nil {
		t.Fatalf("GetRunByIdempotencyKey: %v", err)
	}
	if d := diff(want, got); d != "" {
		t.Errorf("GetRunByIdempotencyKey (-want +got):\n%s", d)
	}

	// A minimal run: no idempotency key, no spec, zero usage.
	minimal := domain.Run{ID: "run-2", SessionKey: "agent:main:main", AgentID: "main", Kind: domain.RunKindChat,
		Lane: domain.LaneMain, Status: domain.RunQueued, CreatedAt: 7}
	createRun(t, st, minimal)
	got, err = st.GetRun(ctx, minimal.ID)
	if err != nil {
		t.Fatalf("GetRun minimal: %v", err)
	}
	if d := cmp.Diff(minimal, got); d != "" {
		t.Errorf("minimal run round trip (-want +got):\n%s", d)
	}
	if _, err := st.GetRunByIdempotencyKey(ctx, ""); err == nil {
		t.Error("GetRunByIdempotencyKey(\"\") found a run without a key")
	}

	// Tx.GetRun sees a run created earlier in the same fn.
	var inTx domain.Run
	update(t, st, func(tx domain.Tx) error {
		if _, _, err := tx.CreateRun(fullRun("run-3")); err != nil {
			return err
		}
		var err error
		inTx, err = tx.GetRun("run-3")
		return err
	})
	if d := diff(fullRun("run-3"), inTx); d != "" {
		t.Errorf("Tx.GetRun of a run created in the same fn (-want +got):\n%s", d)
	}

	err = st.Update(ctx, func(tx domain.Tx) error {
		_, _, err := tx.CreateRun(domain.Run{SessionKey: "agent:main:main", Status: domain.RunQueued})
		return err
	})
	if err == nil {
		t.Error("CreateRun with an empty ID: got nil error")
	}
}

func testRunIdempotency(t *testing.T, st domain.Store) {
	ctx := ctxT(t)
	first := fullRun("run-1")
	first.IdempotencyKey = "idem"
	createRun(t, st, first)

	again := fullRun("run-2")
	again.IdempotencyKey = "idem"
	again.Message = "a retry"
	stored, created := createRun(t, st, again)
	if created {
		t.Error("CreateRun with an existing idempotency key: created = true")
	}
	if d := diff(first, stored); d != "" {
		t.Errorf("CreateRun with an existing key returns the existing run (-want +got):\n%s", d)
	}
	_, err := st.GetRun(ctx, "run-2")
	requireErrorIs(t, err, domain.ErrNotFound, "GetRun of the deduplicated run")

	// Both in one fn: the second sees the first.
	var created1, created2 bool
	update(t, st, func(tx domain.Tx) error {
		a, b := fullRun("run-3"), fullRun("run-4")
		a.IdempotencyKey, b.IdempotencyKey = "idem-2", "idem-2"
		var err error
		if _, created1, err = tx.CreateRun(a); err != nil {
			return err
		}
		_, created2, err = tx.CreateRun(b)
		return err
	})
	if !created1 || created2 {
		t.Errorf("same key twice in one fn: created %v then %v, want true then false", created1, created2)
	}

	// Same ID, no matching key: a conflict, not a silent overwrite.
	dup := fullRun("run-1")
	dup.IdempotencyKey = "other-idem"
	err = st.Update(ctx, func(tx domain.Tx) error {
		_, _, err := tx.CreateRun(dup)
		return err
	})
	requireErrorIs(t, err, domain.ErrConflict, "CreateRun with an existing ID")
	got, err := st.GetRun(ctx, "run-1")
	if err != nil || got.IdempotencyKey != "idem" {
		t.Errorf("run-1 after a conflicting CreateRun = %+v, %v; want it unchanged", got, err)
	}
}

func testRunPut(t *testing.T, st domain.Store) {
	ctx := ctxT(t)
	run := fullRun("run-1")
	createRun(t, st, run)
	run.Status = domain.RunOK
	run.Reply = "final answer"
	run.Error = ""
	run.Usage = domain.Usage{Input: 10, Output: 20, TotalTokens: 30}
	run.Spec = json.RawMessage(`{"announced":true}`)
	run.EndedAt = 1_700_000_000_999
	update(t, st, func(tx domain.Tx) error { return tx.PutRun(run) })
	got, err := st.GetRun(ctx, run.ID)
	if err != nil {
		t.Fatalf("GetRun: %v", err)
	}
	if d := diff(run, got); d != "" {
		t.Errorf("run after PutRun (-want +got):\n%s", d)
	}
	err = st.Update(ctx, func(tx domain.Tx) error { return tx.PutRun(fullRun("run-missing")) })
	requireErrorIs(t, err, domain.ErrNotFound, "PutRun of a missing run")
	if _, err := st.GetRun(ctx, "run-missing"); err == nil {
		t.Error("PutRun of a missing run created it")
	}
}

func testListRuns(t *testing.T, st domain.Store) {
	mk := func(id, session, parent string, status domain.RunStatus, kind domain.RunKind, created int64) domain.Run {
		return domain.Run{ID: id, SessionKey: session, AgentID: "main", ParentRunID: parent, Status: status, Kind: kind,
			Lane: domain.LaneMain, CreatedAt: created}
	}
	runs := []domain.Run{
		mk("r1", "agent:main:main", "", domain.RunOK, domain.RunKindChat, 10),
		mk("r2", "agent:main:sub:a", "r1", domain.RunRunning, domain.RunKindSubagent, 20),
		mk("r3", "agent:main:main", "r1", domain.RunQueued, domain.RunKindReply, 30),
		mk("r4", "agent:ops:main", "", domain.RunError, domain.RunKindSend, 40),
		mk("r5", "agent:main:main", "r3", domain.RunQueued, domain.RunKindAnnounce, 50),
	}
	update(t, st, func(tx domain.Tx) error {
		for _, r := range runs {
			if _, _, err := tx.CreateRun(r); err != nil {
				return err
			}
		}
		return nil
	})
	tests := []struct {
		name string
		q    domain.RunQuery
		want []string
	}{
		{"All", domain.RunQuery{}, []string{"r5", "r4", "r3", "r2", "r1"}},
		{"SessionKey", domain.RunQuery{SessionKey: "agent:main:main"}, []string{"r5", "r3", "r1"}},
		{"ParentRunID", domain.RunQuery{ParentRunID: "r1"}, []string{"r3", "r2"}},
		{"Statuses", domain.RunQuery{Statuses: []domain.RunStatus{domain.RunQueued, domain.RunRunning}}, []string{"r5", "r3", "r2"}},
		{"Kinds", domain.RunQuery{Kinds: []domain.RunKind{domain.RunKindChat, domain.RunKindSend}}, []string{"r4", "r1"}},
		{"Combined", domain.RunQuery{SessionKey: "agent:main:main", Statuses: []domain.RunStatus{domain.RunQueued}}, []string{"r5", "r3"}},
		{"Limit", domain.RunQuery{Limit: 2}, []string{"r5", "r4"}},
		{"NoMatch", domain.RunQuery{SessionKey: "agent:none:main"}, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := st.ListRuns(ctxT(t), tc.q)
			if err != nil {
				t.Fatalf("ListRuns(%+v): %v", tc.q, err)
			}
			ids := make([]string, len(got))
			for i, r := range got {
				ids[i] = r.ID
			}
			if d := cmp.Diff(tc.want, ids); d != "" {
				t.Errorf("ListRuns(%+v) ids, newest first (-want +got):\n%s", tc.q, d)
			}
		})
	}
	if _, err := st.ListRuns(ctxT(t), domain.RunQuery{Limit: -1}); err == nil {
		t.Error("ListRuns with limit -1: got nil error")
	}
}
