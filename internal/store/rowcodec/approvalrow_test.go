package rowcodec

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-go/switchboard/internal/audit"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// columnCount is the number of comma-separated names in cols.
func columnCount(cols string) int { return len(strings.Split(cols, ",")) }

// scanInto copies values into dest the way a driver's scan does for the
// types these rows use (NULL into a pointer is nil).
func scanInto(t *testing.T, values, dest []any) {
	t.Helper()
	if len(values) != len(dest) {
		t.Fatalf("%d values for %d destinations", len(values), len(dest))
	}
	for i, v := range values {
		switch d := dest[i].(type) {
		case *string:
			*d = v.(string)
		case **string:
			if v == nil {
				*d = nil
			} else {
				s := v.(string)
				*d = &s
			}
		case *int:
			*d = v.(int)
		case *int64:
			*d = v.(int64)
		case *domain.ApprovalStatus:
			*d = domain.ApprovalStatus(v.(string))
		default:
			t.Fatalf("column %d: destination %T", i, d)
		}
	}
}

func TestApprovalRowRoundTrip(t *testing.T) {
	for _, a := range []domain.Approval{
		{ID: "apr_1", Tool: "sessions_send", Rule: 2, Edge: "a>b", RequesterKey: "agent:main:a", RequesterAgent: "main",
			TargetKey: "agent:main:b", TargetAgent: "main", Summary: "hi", Call: []byte(`{"message":"hi"}`),
			Status: domain.ApprovalPending, CreatedAt: 1, ExpiresAt: 2},
		{ID: "apr_2", Tool: "sessions_spawn", Status: domain.ApprovalDenied, Decision: "deny", Resolver: "operator", ResolvedAt: 3},
	} {
		vals, err := ApprovalValues(a, nil)
		if err != nil {
			t.Fatal(err)
		}
		if n := columnCount(ApprovalColumns); len(vals) != n || n != ApprovalColumnCount {
			t.Fatalf("%d values, %d columns, ApprovalColumnCount %d", len(vals), n, ApprovalColumnCount)
		}
		var row ApprovalRow
		scanInto(t, vals, row.Dest())
		if diff := cmp.Diff(a, row.Approval()); diff != "" {
			t.Errorf("round trip (-want +got):\n%s", diff)
		}
	}
}

func TestApprovalValuesRefusesBadCall(t *testing.T) {
	_, err := ApprovalValues(domain.Approval{ID: "apr_x", Call: []byte(`{"message":`)}, nil)
	if err == nil || !strings.Contains(err.Error(), "call is not valid JSON") {
		t.Fatalf("err = %v, want the call named as not JSON", err)
	}
}

func TestApprovalValuesText(t *testing.T) {
	vals, err := ApprovalValues(domain.Approval{ID: "apr_1", Summary: "a\x00b"}, func(s string) string { return strings.ReplaceAll(s, "\x00", "?") })
	if err != nil {
		t.Fatal(err)
	}
	if vals[8] != "a?b" {
		t.Errorf("summary value = %q, want the text conversion applied", vals[8])
	}
}

func TestAuditRowRoundTrip(t *testing.T) {
	r := audit.Record{Seq: 7, Entry: audit.Entry{At: 99, Kind: audit.KindMessage, Actor: "token:main", Surface: "ws",
		Op: "sessions_send", Session: "agent:main:a", Target: "agent:main:b", RunID: "run_1", AgentID: "main",
		ToolCallID: "call_1", Outcome: "ok", Detail: "hi"}, Prev: "p", Hash: "h"}
	vals := AuditValues(r)
	if n := columnCount(AuditColumns); len(vals) != n || n != AuditColumnCount {
		t.Fatalf("%d values, %d columns, AuditColumnCount %d", len(vals), n, AuditColumnCount)
	}
	var row AuditRow
	scanInto(t, vals, row.Dest())
	if diff := cmp.Diff(r, row.Record()); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	var st audit.State
	if n := len(AuditHeadDest(&st)); n != columnCount(AuditHeadColumns) {
		t.Errorf("%d head destinations for %d head columns", n, columnCount(AuditHeadColumns))
	}
}
