package storetest

import (
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// fullSession sets every field of Session, with values that catch lossy
// storage: int64s beyond float64 precision, a non-round float, Unicode.
func fullSession(key string) domain.Session {
	return domain.Session{
		Key:         key,
		AgentID:     "main",
		SessionID:   "0b5e5a1e-6c1c-4a56-9a39-2f3c1d1e7a01",
		Kind:        domain.KindGroup,
		Channel:     "discord",
		ChatType:    "group",
		Label:       "Ops room ✓",
		DisplayName: "Ops Room — Ünïcode",
		Origin:      &domain.Origin{Provider: "discord", AccountID: "acct-1"},
		Delivery:    &domain.DeliveryContext{Channel: "discord", To: "channel:42", AccountID: "acct-1", ThreadID: "t-7"},
		LastChannel: "discord",
		LastTo:      "channel:42",
		LastAccount: "acct-1",

		SpawnedBy:        "agent:main:main",
		SpawnDepth:       2,
		SpawnRunID:       "run-parent",
		Sandboxed:        true,
		ForkedFromParent: true,

		Model:          "openai/gpt-4.1-mini",
		ModelOverride:  "anthropic/claude-sonnet-4-5",
		ModelProvider:  "openai",
		ThinkingLevel:  "high",
		VerboseLevel:   "on",
		SendPolicy:     domain.SendPolicyDeny,
		SystemSent:     true,
		AbortedLastRun: true,

		InputTokens:      1<<53 + 1,
		OutputTokens:     2,
		TotalTokens:      1<<53 + 3,
		ContextTokens:    128000,
		EstimatedCostUSD: 0.1 + 0.2,

		Status:    domain.SessionStatusRunning,
		StartedAt: 1_700_000_000_001,
		EndedAt:   1_700_000_000_002,

		CreatedAt:  1_700_000_000_000,
		UpdatedAt:  1_700_000_000_003,
		ArchiveAt:  1_700_000_000_004,
		ArchivedAt: 1_700_000_000_005,
	}
}

func testGetMissing(t *testing.T, st domain.Store) {
	ctx := ctxT(t)
	_, err := st.GetSession(ctx, "agent:main:nope")
	requireErrorIs(t, err, domain.ErrNotFound, "GetSession of a missing key")
	_, err = st.GetRun(ctx, "run-nope")
	requireErrorIs(t, err, domain.ErrNotFound, "GetRun of a missing id")
	_, err = st.GetRunByIdempotencyKey(ctx, "idem-nope")
	requireErrorIs(t, err, domain.ErrNotFound, "GetRunByIdempotencyKey of a missing key")
	var txSessErr, txRunErr error
	update(t, st, func(tx domain.Tx) error {
		_, txSessErr = tx.GetSession("agent:main:nope")
		_, txRunErr = tx.GetRun("run-nope")
		return nil
	})
	requireErrorIs(t, txSessErr, domain.ErrNotFound, "Tx.GetSession of a missing key")
	requireErrorIs(t, txRunErr, domain.ErrNotFound, "Tx.GetRun of a missing id")
}

func testSessionRoundTrip(t *testing.T, st domain.Store) {
	ctx := ctxT(t)
	want := fullSession("agent:main:discord:group:42")
	requireAllFieldsSet(t, want)
	minimal := domain.Session{Key: "agent:main:main", AgentID: "main", SessionID: "s-min", Kind: domain.KindMain, UpdatedAt: 5}
	putSessions(t, st, want, minimal)

	got, err := st.GetSession(ctx, want.Key)
	if err != nil {
		t.Fatalf("GetSession: %v", err)
	}
	if d := diff(want, got); d != "" {
		t.Errorf("GetSession round trip (-want +got):\n%s", d)
	}
	gotMin, err := st.GetSession(ctx, minimal.Key)
	if err != nil {
		t.Fatalf("GetSession minimal: %v", err)
	}
	if d := cmp.Diff(minimal, gotMin); d != "" {
		t.Errorf("minimal session round trip (-want +got):\n%s", d)
	}

	// Every read path returns the whole row.
	list, err := st.ListSessions(ctx, domain.SessionQuery{IncludeArchived: true})
	if err != nil {
		t.Fatalf("ListSessions: %v", err)
	}
	if d := diff([]domain.Session{want, minimal}, list); d != "" {
		t.Errorf("ListSessions rows (-want +got):\n%s", d)
	}
	found, err := st.FindSessionsByID(ctx, want.SessionID)
	if err != nil {
		t.Fatalf("FindSessionsByID: %v", err)
	}
	if d := diff([]domain.Session{want}, found); d != "" {
		t.Errorf("FindSessionsByID rows (-want +got):\n%s", d)
	}
	var inTx domain.Session
	update(t, st, func(tx domain.Tx) error {
		var err error
		inTx, err = tx.GetSession(want.Key)
		return err
	})
	if d := diff(want, inTx); d != "" {
		t.Errorf("Tx.GetSession (-want +got):\n%s", d)
	}
}

func testSessionReplace(t *testing.T, st domain.Store) {
	full := fullSession("agent:main:main")
	putSessions(t, st, full)
	// PutSession replaces the whole row: fields left zero are cleared.
	replaced := domain.Session{Key: full.Key, AgentID: "main", SessionID: "s-new", Kind: domain.KindMain, UpdatedAt: 9}
	putSessions(t, st, replaced)
	got, err := st.GetSession(ctxT(t), full.Key)
	if err != nil {
		t.Fatalf("GetSession: %v", err)
	}
	if d := cmp.Diff(replaced, got); d != "" {
		t.Errorf("replaced row (-want +got):\n%s", d)
	}
	n, err := st.CountSessions(ctxT(t), domain.SessionQuery{IncludeArchived: true})
	if err != nil || n != 1 {
		t.Errorf("CountSessions after replace = %d, %v; want 1", n, err)
	}
}

func testSessionInvalid(t *testing.T, st domain.Store) {
	ctx := ctxT(t)
	err := st.Update(ctx, func(tx domain.Tx) error { return tx.PutSession(domain.Session{AgentID: "main"}) })
	if err == nil {
		t.Error("PutSession with an empty key: got nil error")
	}
	if _, err := st.ListSessions(ctx, domain.SessionQuery{Limit: -1}); err == nil {
		t.Error("ListSessions with limit -1: got nil error")
	}
	if _, err := st.CountSessions(ctx, domain.SessionQuery{Limit: -1}); err == nil {
		t.Error("CountSessions with limit -1: got nil error")
	}
}

// listFixture is a forest of sessions of three agents, with ties, an
// archived row and a four-level spawn tree.
func listFixture() []domain.Session {
	s := func(key, agent, kind, spawnedBy, label, display string, updated, archived int64) domain.Session {
		return domain.Session{Key: key, AgentID: agent, SessionID: "sid-" + key, Kind: kind, SpawnedBy: spawnedBy,
			Label: label, DisplayName: display, UpdatedAt: updated, ArchivedAt: archived}
	}
	return []domain.Session{
		s("agent:main:main", "main", domain.KindMain, "", "", "Main", 100, 0),
		s("agent:main:sub:b", "main", domain.KindOther, "agent:main:main", "beta", "", 90, 0),
		s("agent:main:sub:a", "main", domain.KindOther, "agent:main:main", "alpha", "", 90, 0),
		s("agent:main:sub:a1", "main", domain.KindOther, "agent:main:sub:a", "", "", 80, 0),
		s("agent:main:sub:a1x", "main", domain.KindOther, "agent:main:sub:a1", "", "Deep Child", 70, 0),
		s("agent:ops:main", "ops", domain.KindMain, "", "", "Operations", 60, 0),
		s("agent:ops:cron:nightly", "ops", domain.KindCron, "", "Nightly", "", 50, 0),
		s("agent:ops:sub:c", "ops", domain.KindOther, "agent:ops:main", "", "", 40, 0),
		s("agent:main:sub:old", "main", domain.KindOther, "agent:main:main", "alpha", "", 30, 35),
		s("agent:x:discord:group:1", "x", domain.KindGroup, "", "", "", 20, 0),
	}
}

func testListOrder(t *testing.T, st domain.Store) {
	putSessions(t, st, listFixture()...)
	got, err := st.ListSessions(ctxT(t), domain.SessionQuery{})
	if err != nil {
		t.Fatalf("ListSessions: %v", err)
	}
	want := []string{
		"agent:main:main", "agent:main:sub:a", "agent:main:sub:b", "agent:main:sub:a1", "agent:main:sub:a1x",
		"agent:ops:main", "agent:ops:cron:nightly", "agent:ops:sub:c", "agent:x:discord:group:1",
	}
	if d := cmp.Diff(want, keysOf(got)); d != "" {
		t.Errorf("list order: newest updatedAt first, key asc on ties, archived hidden (-want +got):\n%s", d)
	}
}

func testListFilters(t *testing.T, st domain.Store) {
	putSessions(t, st, listFixture()...)
	ctx := ctxT(t)
	tests := []struct {
		name string
		q    domain.SessionQuery
		want []string
		// count is CountSessions of q when it differs from len(want) (Limit).
		count int
	}{
		{"IncludeArchived", domain.SessionQuery{IncludeArchived: true}, []string{
			"agent:main:main", "agent:main:sub:a", "agent:main:sub:b", "agent:main:sub:a1", "agent:main:sub:a1x",
			"agent:ops:main", "agent:ops:cron:nightly", "agent:ops:sub:c", "agent:main:sub:old", "agent:x:discord:group:1",
		}, 0},
		{"OnlyArchived", domain.SessionQuery{OnlyArchived: true}, []string{"agent:main:sub:old"}, 0},
		{"OnlyArchivedWins", domain.SessionQuery{OnlyArchived: true, IncludeArchived: true}, []string{"agent:main:sub:old"}, 0},
		{"AgentID", domain.SessionQuery{AgentID: "main"}, []string{
			"agent:main:main", "agent:main:sub:a", "agent:main:sub:b", "agent:main:sub:a1", "agent:main:sub:a1x",
		}, 0},
		{"AgentIDs", domain.SessionQuery{AgentIDs: []string{"ops", "x"}}, []string{
			"agent:ops:main", "agent:ops:cron:nightly", "agent:ops:sub:c", "agent:x:discord:group:1",
		}, 0},
		{"AgentIDAndAgentIDs", domain.SessionQuery{AgentID: "ops", AgentIDs: []string{"main", "ops"}}, []string{
			"agent:ops:main", "agent:ops:cron:nightly", "agent:ops:sub:c",
		}, 0},
		{"UnknownAgent", domain.SessionQuery{AgentID: "ghost"}, []string{}, 0},
		{"Kinds", domain.SessionQuery{Kinds: []string{domain.KindMain, domain.KindCron}}, []string{
			"agent:main:main", "agent:ops:main", "agent:ops:cron:nightly",
		}, 0},
		{"SpawnedBy", domain.SessionQuery{SpawnedBy: "agent:main:main"}, []string{"agent:main:sub:a", "agent:main:sub:b"}, 0},
		{"SpawnedByWithArchived", domain.SessionQuery{SpawnedBy: "agent:main:main", IncludeArchived: true}, []string{
			"agent:main:sub:a", "agent:main:sub:b", "agent:main:sub:old",
		}, 0},
		{"TreeRootSubtree", domain.SessionQuery{TreeRoot: "agent:main:sub:a"}, []string{
			"agent:main:sub:a", "agent:main:sub:a1", "agent:main:sub:a1x",
		}, 0},
		{"TreeRootWholeTree", domain.SessionQuery{TreeRoot: "agent:main:main"}, []string{
			"agent:main:main", "agent:main:sub:a", "agent:main:sub:b", "agent:main:sub:a1", "agent:main:sub:a1x",
		}, 0},
		{"TreeRootWithArchived", domain.SessionQuery{TreeRoot: "agent:main:main", IncludeArchived: true}, []string{
			"agent:main:main", "agent:main:sub:a", "agent:main:sub:b", "agent:main:sub:a1", "agent:main:sub:a1x", "agent:main:sub:old",
		}, 0},
		{"TreeRootLeaf", domain.SessionQuery{TreeRoot: "agent:main:sub:a1x"}, []string{"agent:main:sub:a1x"}, 0},
		{"TreeRootUnknown", domain.SessionQuery{TreeRoot: "agent:main:ghost"}, []string{}, 0},
		{"TreeRootAndKinds", domain.SessionQuery{TreeRoot: "agent:ops:main", Kinds: []string{domain.KindOther}}, []string{"agent:ops:sub:c"}, 0},
		{"UpdatedSince", domain.SessionQuery{UpdatedSince: 60}, []string{
			"agent:main:main", "agent:main:sub:a", "agent:main:sub:b", "agent:main:sub:a1", "agent:main:sub:a1x", "agent:ops:main",
		}, 0},
		{"Label", domain.SessionQuery{Label: "alpha"}, []string{"agent:main:sub:a"}, 0},
		{"LabelWithArchived", domain.SessionQuery{Label: "alpha", IncludeArchived: true}, []string{"agent:main:sub:a", "agent:main:sub:old"}, 0},
		{"SearchKeyCaseInsensitive", domain.SessionQuery{Search: "SUB:A"}, []string{
			"agent:main:sub:a", "agent:main:sub:a1", "agent:main:sub:a1x",
		}, 0},
		{"SearchLabel", domain.SessionQuery{Search: "nIGHTl"}, []string{"agent:ops:cron:nightly"}, 0},
		{"SearchLabelOnly", domain.SessionQuery{Search: "bet"}, []string{"agent:main:sub:b"}, 0},
		{"SearchDisplayName", domain.SessionQuery{Search: "deep ch"}, []string{"agent:main:sub:a1x"}, 0},
		{"SearchDisplayNameOps", domain.SessionQuery{Search: "operat"}, []string{"agent:ops:main"}, 0},
		{"SearchNoMatch", domain.SessionQuery{Search: "zzz"}, []string{}, 0},
		{"Limit", domain.SessionQuery{Limit: 3}, []string{"agent:main:main", "agent:main:sub:a", "agent:main:sub:b"}, 9},
		{"Combined", domain.SessionQuery{AgentID: "main", Kinds: []string{domain.KindOther}, UpdatedSince: 80, Limit: 2},
			[]string{"agent:main:sub:a", "agent:main:sub:b"}, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := st.ListSessions(ctx, tc.q)
			if err != nil {
				t.Fatalf("ListSessions(%+v): %v", tc.q, err)
			}
			if d := cmp.Diff(tc.want, keysOf(got)); d != "" {
				t.Errorf("ListSessions(%+v) keys (-want +got):\n%s", tc.q, d)
			}
			n, err := st.CountSessions(ctx, tc.q)
			if err != nil {
				t.Fatalf("CountSessions(%+v): %v", tc.q, err)
			}
			want := tc.count
			if want == 0 {
				want = len(tc.want)
			}
			if n != want {
				t.Errorf("CountSessions(%+v) = %d, want %d", tc.q, n, want)
			}
		})
	}
}

func testListCursor(t *testing.T, st domain.Store) {
	putSessions(t, st, listFixture()...)
	ctx := ctxT(t)
	for _, q := range []domain.SessionQuery{{}, {IncludeArchived: true}, {AgentID: "main"}} {
		all, err := st.ListSessions(ctx, q)
		if err != nil {
			t.Fatalf("ListSessions: %v", err)
		}
		for _, size := range []int{1, 2, 3, 4} {
			var paged []string
			page := q
			page.Limit = size
			for range 20 {
				rows, err := st.ListSessions(ctx, page)
				if err != nil {
					t.Fatalf("ListSessions page: %v", err)
				}
				paged = append(paged, keysOf(rows)...)
				if len(rows) < size {
					break
				}
				last := rows[len(rows)-1]
				page.AfterUpdatedAt, page.AfterKey = last.UpdatedAt, last.Key
				// Count honours the cursor: what is left after this page.
				left, err := st.CountSessions(ctx, page)
				if err != nil {
					t.Fatalf("CountSessions with cursor: %v", err)
				}
				if wantLeft := len(all) - len(paged); left != wantLeft {
					t.Errorf("query %+v: CountSessions after %q = %d, want %d", q, last.Key, left, wantLeft)
				}
			}
			if d := cmp.Diff(keysOf(all), paged); d != "" {
				t.Errorf("query %+v, pages of %d: concatenated pages differ from one list (-want +got):\n%s", q, size, d)
			}
		}
	}
	// The cursor is strictly after (updatedAt, key): a tie continues by key.
	rows, err := st.ListSessions(ctx, domain.SessionQuery{AfterUpdatedAt: 90, AfterKey: "agent:main:sub:a", Limit: 2})
	if err != nil {
		t.Fatalf("ListSessions: %v", err)
	}
	if d := cmp.Diff([]string{"agent:main:sub:b", "agent:main:sub:a1"}, keysOf(rows)); d != "" {
		t.Errorf("page after a tie (-want +got):\n%s", d)
	}
}

func testListSearchIsLiteral(t *testing.T, st domain.Store) {
	putSessions(t, st,
		domain.Session{Key: "agent:main:a", AgentID: "main", Kind: domain.KindOther, Label: "100%_done", UpdatedAt: 2},
		domain.Session{Key: "agent:main:b", AgentID: "main", Kind: domain.KindOther, Label: "100 percent", UpdatedAt: 1},
	)
	for _, search := range []string{"%_", "0%", "%", "_"} {
		got, err := st.ListSessions(ctxT(t), domain.SessionQuery{Search: search})
		if err != nil {
			t.Fatalf("ListSessions: %v", err)
		}
		if d := cmp.Diff([]string{"agent:main:a"}, keysOf(got)); d != "" {
			t.Errorf("Search %q must match literally (-want +got):\n%s", search, d)
		}
	}
}

func testListExcludesCronRuns(t *testing.T, st domain.Store) {
	ctx := ctxT(t)
	putSessions(t, st,
		domain.Session{Key: "agent:main:cron:nightly:run:r1", AgentID: "main", UpdatedAt: 1},
		domain.Session{Key: "cron:nightly:run:r2", AgentID: "main", UpdatedAt: 2},
		domain.Session{Key: "agent:main:cron:nightly", AgentID: "main", UpdatedAt: 3},
		domain.Session{Key: "agent:main:cron:run:x", AgentID: "main", UpdatedAt: 4},
		domain.Session{Key: "agent:main:telegram:group:cron:run:7", AgentID: "main", UpdatedAt: 5},
		domain.Session{Key: "agent:main:main", AgentID: "main", UpdatedAt: 6},
	)
	for _, tc := range []struct {
		exclude bool
		want    []string
	}{
		{false, []string{"agent:main:main", "agent:main:telegram:group:cron:run:7", "agent:main:cron:run:x", "agent:main:cron:nightly",
			"cron:nightly:run:r2", "agent:main:cron:nightly:run:r1"}},
		// Only a cron job's run keys go: the job's own session, a job named
		// "run" and a group that merely contains cron and run stay.
		{true, []string{"agent:main:main", "agent:main:telegram:group:cron:run:7", "agent:main:cron:run:x", "agent:main:cron:nightly"}},
	} {
		got, err := st.ListSessions(ctx, domain.SessionQuery{ExcludeCronRuns: tc.exclude, Limit: 100})
		if err != nil {
			t.Fatalf("ListSessions: %v", err)
		}
		if d := cmp.Diff(tc.want, keysOf(got)); d != "" {
			t.Errorf("ListSessions(ExcludeCronRuns=%v) keys (-want +got):\n%s", tc.exclude, d)
		}
		n, err := st.CountSessions(ctx, domain.SessionQuery{ExcludeCronRuns: tc.exclude})
		if err != nil || n != len(tc.want) {
			t.Errorf("CountSessions(ExcludeCronRuns=%v) = %d, %v; want %d", tc.exclude, n, err, len(tc.want))
		}
	}
}

func testFindSessionsByID(t *testing.T, st domain.Store) {
	ctx := ctxT(t)
	putSessions(t, st,
		domain.Session{Key: "agent:main:a", AgentID: "main", SessionID: "shared", UpdatedAt: 1},
		domain.Session{Key: "agent:ops:b", AgentID: "ops", SessionID: "shared", UpdatedAt: 2, ArchivedAt: 3},
		domain.Session{Key: "agent:main:c", AgentID: "main", SessionID: "other", UpdatedAt: 3},
	)
	got, err := st.FindSessionsByID(ctx, "shared")
	if err != nil {
		t.Fatalf("FindSessionsByID: %v", err)
	}
	keys := keysOf(got)
	slices.Sort(keys)
	if d := cmp.Diff([]string{"agent:main:a", "agent:ops:b"}, keys); d != "" {
		t.Errorf("FindSessionsByID(shared) keys, archived included (-want +got):\n%s", d)
	}
	got, err = st.FindSessionsByID(ctx, "unknown")
	if err != nil || len(got) != 0 {
		t.Errorf("FindSessionsByID(unknown) = %v, %v; want no rows, no error", keysOf(got), err)
	}
	// Only the current generation counts.
	putSessions(t, st, domain.Session{Key: "agent:main:a", AgentID: "main", SessionID: "next", UpdatedAt: 4})
	got, err = st.FindSessionsByID(ctx, "shared")
	if err != nil {
		t.Fatalf("FindSessionsByID: %v", err)
	}
	if d := cmp.Diff([]string{"agent:ops:b"}, keysOf(got)); d != "" {
		t.Errorf("FindSessionsByID after a new sessionId (-want +got):\n%s", d)
	}
}

// errNope is returned by fns that must roll back.
var errNope = errors.New("storetest: fn failed on purpose")
