package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// testApprovals: an approval round-trips through Tx and reader, a put
// replaces it, listings filter by status, edge and decision newest first
// and page by offset, and an unknown id is ErrNotFound.
func testApprovals(t *testing.T, st domain.Store) {
	ctx := context.Background()
	reader, ok := st.(domain.ApprovalReader)
	if !ok {
		t.Fatal("the store keeps no approvals (domain.ApprovalReader)")
	}
	mk := func(id string, at int64, status domain.ApprovalStatus, decision, edge string) domain.Approval {
		return domain.Approval{ID: id, Tool: "sessions_send", Rule: 1, Edge: edge, RequesterKey: "agent:main:a", RequesterAgent: "main",
			TargetKey: "agent:main:b", TargetAgent: "main", Summary: "a asks", Call: json.RawMessage(`{"send":{"Message":"hi"}}`),
			Status: status, Decision: decision, Resolver: "device:operator", CreatedAt: at, ExpiresAt: at + 1000, ResolvedAt: at + 1}
	}
	rows := []domain.Approval{
		mk("apr_1", 100, domain.ApprovalPending, "", "e1"),
		mk("apr_2", 200, domain.ApprovalAllowed, "allow-always", "e1"),
		mk("apr_3", 300, domain.ApprovalDenied, "deny", "e2"),
	}
	err := st.Update(ctx, func(tx domain.Tx) error {
		atx, ok := tx.(domain.ApprovalTx)
		if !ok {
			return errors.New("the store's Tx keeps no approvals (domain.ApprovalTx)")
		}
		for _, a := range rows {
			if err := atx.PutApproval(a); err != nil {
				return err
			}
		}
		got, err := atx.GetApproval("apr_2")
		if err != nil || got.Decision != "allow-always" {
			return errors.New("Tx.GetApproval does not see the transaction's own write")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := reader.GetApproval(ctx, "apr_1")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(rows[0], got, cmp.Comparer(jsonEqual)); d != "" {
		t.Fatalf("round trip (-put +got):\n%s", d)
	}
	if _, err := reader.GetApproval(ctx, "apr_none"); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("unknown approval = %v; want ErrNotFound", err)
	}
	// A put replaces: the pending one is decided.
	rows[0].Status, rows[0].Decision = domain.ApprovalDenied, "deny"
	if err := st.Update(ctx, func(tx domain.Tx) error { return tx.(domain.ApprovalTx).PutApproval(rows[0]) }); err != nil {
		t.Fatal(err)
	}
	ids := func(q domain.ApprovalQuery) []string {
		t.Helper()
		as, err := reader.ListApprovals(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		out := []string{}
		for _, a := range as {
			out = append(out, a.ID)
		}
		return out
	}
	for _, c := range []struct {
		q    domain.ApprovalQuery
		want []string
	}{
		{domain.ApprovalQuery{}, []string{"apr_3", "apr_2", "apr_1"}},
		{domain.ApprovalQuery{Statuses: []domain.ApprovalStatus{domain.ApprovalDenied}}, []string{"apr_3", "apr_1"}},
		{domain.ApprovalQuery{Statuses: []domain.ApprovalStatus{domain.ApprovalPending}}, []string{}},
		{domain.ApprovalQuery{Edge: "e1", Decision: "allow-always"}, []string{"apr_2"}},
		{domain.ApprovalQuery{Limit: 1, Offset: 1}, []string{"apr_2"}},
		{domain.ApprovalQuery{Offset: 2}, []string{"apr_1"}},
	} {
		if d := cmp.Diff(c.want, ids(c.q)); d != "" {
			t.Errorf("ListApprovals(%+v) (-want +got):\n%s", c.q, d)
		}
	}
	if _, err := reader.ListApprovals(ctx, domain.ApprovalQuery{Limit: -1}); err == nil {
		t.Error("a negative limit was accepted")
	}
	bad := mk("apr_bad", 1, domain.ApprovalPending, "", "e")
	bad.Call = json.RawMessage(`{`)
	if err := st.Update(ctx, func(tx domain.Tx) error { return tx.(domain.ApprovalTx).PutApproval(bad) }); err == nil {
		t.Error("an approval with invalid JSON in call was stored")
	}
}
