// Package storetest is the conformance suite of domain.Store. Every backend
// runs it from its own tests:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) domain.Store { return openFresh(t) })
//	}
//
// Besides the contract written on domain.Store, the suite pins down these
// decisions, which every backend must share:
//   - Close is idempotent; after it, Update and reads fail with
//     domain.ErrClosed.
//   - A Tx used after its fn returned fails with an error (never panics).
//   - Negative limits are errors; an empty key, sessionId, message role,
//     run id or outbox idempotency key on write is an error, and so is
//     invalid JSON in a JSON field.
//   - CountSessions honours every filter and the After cursor, ignores Limit.
//   - ListOutbox's "oldest first" is ascending ID; EnqueueOutbox assigns
//     increasing IDs and stores an empty Status as pending.
//   - CreateRun with an existing ID (and no matching idempotency key)
//     fails with domain.ErrConflict.
//   - DeleteSession of a key without a row is not an error.
//   - JSON fields (Run.Spec, OutboxItem.Payload, Message details and tool
//     arguments) round-trip as equal JSON values, not necessarily as equal
//     bytes.
package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// Run runs the conformance suite. open must return a fresh, empty store
// for each call; the suite closes it when the subtest ends. Subtests run in
// parallel.
func Run(t *testing.T, open func(t *testing.T) domain.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, st domain.Store)
	}{
		{"GetMissing", testGetMissing},
		{"SessionRoundTrip", testSessionRoundTrip},
		{"SessionReplace", testSessionReplace},
		{"SessionInvalid", testSessionInvalid},
		{"ListOrder", testListOrder},
		{"ListFilters", testListFilters},
		{"ListCursor", testListCursor},
		{"ListSearchIsLiteral", testListSearchIsLiteral},
		{"ListExcludesCronRuns", testListExcludesCronRuns},
		{"FindSessionsByID", testFindSessionsByID},
		{"AppendAssigns", testAppendAssigns},
		{"AppendInvalid", testAppendInvalid},
		{"ReadTail", testReadTail},
		{"ReadGenerations", testReadGenerations},
		{"MessageJSONRoundTrip", testMessageJSONRoundTrip},
		{"DeleteSession", testDeleteSession},
		{"RunRoundTrip", testRunRoundTrip},
		{"RunIdempotency", testRunIdempotency},
		{"RunPut", testRunPut},
		{"ListRuns", testListRuns},
		{"OutboxEnqueue", testOutboxEnqueue},
		{"OutboxPut", testOutboxPut},
		{"Approvals", testApprovals},
		{"ListOutbox", testListOutbox},
		{"UpdateAtomic", testUpdateAtomic},
		{"UpdateConcurrentFailures", testUpdateConcurrentFailures},
		{"TxSeesOwnWrites", testTxSeesOwnWrites},
		{"TxAfterReturn", testTxAfterReturn},
		{"InvalidJSON", testInvalidJSON},
		{"UpdateCancelledContext", testUpdateCancelledContext},
		{"Closed", testClosed},
		{"ConcurrentAppends", testConcurrentAppends},
		{"SearchWords", testSearchWords},
		{"SearchHitFields", testSearchHitFields},
		{"SearchCursor", testSearchCursor},
		{"SearchScanScoped", testSearchScanScoped},
		{"SearchScanCap", testSearchScanCap},
		{"SearchGenerations", testSearchGenerations},
		{"SearchRolledBack", testSearchRolledBack},
		{"SearchInvalid", testSearchInvalid},
		{"ReadPaging", testReadPaging},
		{"ListOffset", testListOffset},
		{"Accounts", testAccounts},
		{"UsageReport", testUsageReport},
		{"Gate", testGate},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st := open(t)
			t.Cleanup(func() {
				if err := st.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			tc.fn(t, st)
		})
	}
}

// ctxT returns a context that ends with the test (and after a generous
// deadline, so a hung store fails instead of stalling the run).
func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// update runs fn in st.Update and fails the test on error. fn reports
// problems by returning errors: it may run on another goroutine.
func update(t *testing.T, st domain.Store, fn func(tx domain.Tx) error) {
	t.Helper()
	if err := st.Update(ctxT(t), fn); err != nil {
		t.Fatalf("Update: %v", err)
	}
}

// putSessions stores sessions in one Update.
func putSessions(t *testing.T, st domain.Store, ss ...domain.Session) {
	t.Helper()
	update(t, st, func(tx domain.Tx) error {
		for _, s := range ss {
			if err := tx.PutSession(s); err != nil {
				return err
			}
		}
		return nil
	})
}

// appendMsgs appends msgs in one Update and returns the stored messages.
func appendMsgs(t *testing.T, st domain.Store, key, sessionID string, msgs ...domain.Message) []domain.Message {
	t.Helper()
	var out []domain.Message
	update(t, st, func(tx domain.Tx) error {
		var err error
		out, err = tx.AppendMessages(key, sessionID, msgs)
		return err
	})
	return out
}

// cmpOpts compares domain values: Content by its blocks and plainness, JSON
// values by meaning, nil and empty slices alike.
func cmpOpts() cmp.Options {
	return cmp.Options{
		cmp.AllowUnexported(domain.Content{}),
		cmpopts.EquateEmpty(),
		// Only when one side has JSON: two empty values are EquateEmpty's,
		// and two options on one value make cmp panic.
		cmp.FilterValues(func(x, y json.RawMessage) bool { return len(x) > 0 || len(y) > 0 },
			cmp.Transformer("JSON", func(r json.RawMessage) any {
				if len(r) == 0 {
					return nil
				}
				var v any
				if err := json.Unmarshal(r, &v); err != nil {
					return "invalid JSON: " + string(r)
				}
				return v
			})),
	}
}

// diff returns cmp.Diff(want, got) under cmpOpts.
func diff(want, got any) string { return cmp.Diff(want, got, cmpOpts()) }

// requireAllFieldsSet fails when a field of the struct v is zero, so a
// fixture that claims to cover every field keeps doing so as the domain
// types grow.
func requireAllFieldsSet(t *testing.T, v any, notStored ...string) {
	t.Helper()
	rv := reflect.ValueOf(v)
	for i := range rv.NumField() {
		if rv.Field(i).IsZero() && !slices.Contains(notStored, rv.Type().Field(i).Name) {
			t.Errorf("fixture %T leaves field %s zero; set it so the round trip covers it", v, rv.Type().Field(i).Name)
		}
	}
}

func keysOf(ss []domain.Session) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.Key
	}
	return out
}

// requireErrorIs fails the test unless err wraps target.
func requireErrorIs(t *testing.T, err, target error, what string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: got nil error, want %v", what, target)
	}
	if !errors.Is(err, target) {
		t.Fatalf("%s: got %v, want an error wrapping %v", what, err, target)
	}
}
