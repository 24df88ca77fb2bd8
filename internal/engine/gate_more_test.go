package engine

import (
	"context"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/audit"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// audit.maxRecords is applied when the engine starts: the oldest records
// go, the rest still verify from the anchor the pruning leaves.
func TestAuditRetentionAppliedAtStart(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{rule(config.ScriptWhen{}, "answer")}, nil)
	bound := api.Principal{Name: "bound", Scopes: api.ScopeRead | api.ScopeWrite, Session: "agent:main:other"}
	for range 6 {
		if _, err := h.e.UsageReport(t.Context(), bound, api.UsageRequest{By: "session"}); err == nil {
			t.Fatal("a bound token read the usage report")
		}
	}
	if n := len(ofKind(auditRecords(t, h), audit.KindRefusal)); n != 6 {
		t.Fatalf("refusal records = %d, want 6", n)
	}
	h.restartWith(func(c *config.Config) { c.Audit.MaxRecords = 3 })
	h.waitFor("the pruning at start", func() bool {
		st, err := h.st.AuditState(t.Context())
		return err == nil && st.Anchor.Seq == 3
	})
	recs := auditRecords(t, h) // verifies the chain
	if len(recs) != 3 {
		t.Fatalf("records after a start with audit.maxRecords 3 = %d, want 3", len(recs))
	}
}

// The decided approvals are in approval.history, newest first; an unknown
// id is refused by name; a bound token reads neither.
func TestApprovalHistoryAndGet(t *testing.T) {
	h, runOf := approvalHarness(t, nil, nil)
	first := sendFrom(h, runOf, sessA, sessB, "one")
	second := sendFrom(h, runOf, sessA, sessB, "two")
	resolve(t, h, api.Operator(), first.ApprovalID, api.DecisionDeny)
	resolve(t, h, api.Operator(), second.ApprovalID, api.DecisionDeny)
	hist, err := h.e.ApprovalHistory(t.Context(), api.Operator(), api.ApprovalHistoryRequest{})
	if err != nil || len(hist.Items) != 2 || hist.Items[0].ID != second.ApprovalID || hist.Items[1].ID != first.ApprovalID {
		t.Fatalf("history = %+v, %v; want the two denials, newest first", hist, err)
	}
	if _, err := h.e.ApprovalGet(t.Context(), api.Operator(), api.ApprovalGetRequest{ID: "no-such-approval"}); domain.ErrorCode(err) != domain.CodeNotFound {
		t.Fatalf("get of an unknown id = %v, want not found", err)
	}
	bound := api.Principal{Name: "bound", Scopes: api.ScopeRead | api.ScopeWrite, Session: sessA}
	if _, err := h.e.ApprovalHistory(t.Context(), bound, api.ApprovalHistoryRequest{}); err == nil {
		t.Fatal("a bound token read the approval history")
	}
	if _, err := h.e.ApprovalGet(t.Context(), bound, api.ApprovalGetRequest{ID: first.ApprovalID}); err == nil {
		t.Fatal("a bound token read an approval")
	}
}

// The keys people type resolve as the default requester sees them: main
// is the default agent's main session, shown back as main.
func TestCanonicalAndDisplayKeys(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{rule(config.ScriptWhen{}, "answer")}, nil)
	ctx := context.Background()
	if got := h.e.DefaultRequesterKey(); got != "agent:main:main" {
		t.Fatalf("default requester = %q", got)
	}
	if got, err := h.e.CanonicalKey(ctx, "main"); err != nil || got != "agent:main:main" {
		t.Fatalf("canonical main = %q, %v", got, err)
	}
	if got := h.e.DisplayKey("agent:main:main"); got != "main" {
		t.Fatalf("display of the main key = %q", got)
	}
	r := h.chat("agent:main:other", "hi")
	if got, err := h.e.CanonicalKey(ctx, r.SessionID); err != nil || got != "agent:main:other" {
		t.Fatalf("canonical of a sessionId = %q, %v", got, err)
	}
	// The reply is back before the run's lane lets it go.
	h.waitFor("no run queued or active", func() bool {
		queued, active := h.e.Stats()
		return queued == 0 && active == 0
	})
}

// A command beside no gateway (an engine that is not started) lists the
// paused edges from the messages held in the store.
func TestLoopsListWithoutStart(t *testing.T) {
	h, runOf := loopHarness(t, func(c *config.Config) { c.Session.AgentToAgent.LoopBreaker.MaxMessages = 1 })
	a, b := "agent:main:a", "agent:main:b"
	sendFrom(h, runOf, a, b, "one")
	if res := sendFrom(h, runOf, a, b, "two"); res.Status != "paused" {
		t.Fatalf("second message = %+v", res)
	}
	cli, err := New(Options{Config: h.cfg, Store: h.st, Models: h.e.models, StateDir: h.dir})
	if err != nil {
		t.Fatal(err)
	}
	list, err := cli.LoopsList(t.Context(), api.Operator())
	if err != nil || len(list.Pauses) != 1 || list.Pauses[0].From != a || list.Pauses[0].To != b {
		t.Fatalf("pauses seen without a start = %+v, %v", list.Pauses, err)
	}
}

// What the gateway records through the engine (a token's use) joins the
// chain with everything else.
func TestRecordJoinsTheChain(t *testing.T) {
	h := newHarness(t, nil, nil)
	if err := h.e.Record(t.Context(), audit.Entry{Kind: audit.KindTokenUse, Actor: "ci-token", Surface: "http", Outcome: "ok"}); err != nil {
		t.Fatal(err)
	}
	recs := ofKind(auditRecords(t, h), audit.KindTokenUse)
	if len(recs) != 1 || recs[0].Actor != "ci-token" || recs[0].Surface != "http" {
		t.Fatalf("token use records = %+v", recs)
	}
}
