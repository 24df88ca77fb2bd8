package engine

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/approvals"
	"github.com/switchboard-go/switchboard/internal/audit"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// approvalHarness: sessions a and b of agent main that answer every
// message, a rule that holds every send (and spawn) of agent main, and
// no reply-back turns. now, when set, is the engine's clock.
func approvalHarness(t *testing.T, now func() time.Time, mutate func(*config.Config)) (*harness, map[string]string) {
	t.Helper()
	h := newHarnessOpts(t, []config.ScriptRule{
		rule(config.ScriptWhen{System: "Agent-to-agent announce step:"}, "ANNOUNCE_SKIP"),
		rule(config.ScriptWhen{}, "ok"),
	}, func(c *config.Config) {
		agentVisibility(c)
		c.Session.AgentToAgent.MaxPingPongTurns = 0
		c.Approvals.Rules = []config.ApprovalRule{{RequesterAgent: "main"}}
		if mutate != nil {
			mutate(c)
		}
	}, func(o *Options) { o.Now = now })
	runOf := map[string]string{}
	for _, name := range []string{"a", "b"} {
		runOf["agent:main:"+name] = h.chat(name, "hello").ID
	}
	return h, runOf
}

const sessA, sessB = "agent:main:a", "agent:main:b"

func resolve(t *testing.T, h *harness, p api.Principal, id, decision string) api.ApprovalResolveResult {
	t.Helper()
	res, err := h.e.ApprovalResolve(t.Context(), p, api.ApprovalResolveRequest{ID: id, Kind: api.ApprovalKindPlugin, Decision: decision})
	if err != nil {
		t.Fatalf("resolve %s %s: %v", id, decision, err)
	}
	return res
}

// posted reports whether session key's transcript holds a message with
// every one of parts.
func posted(h *harness, key string, parts ...string) bool {
	for _, m := range h.history(key) {
		text, all := m.Content.Text(), true
		for _, p := range parts {
			all = all && strings.Contains(text, p)
		}
		if all {
			return true
		}
	}
	return false
}

func approvalOf(t *testing.T, h *harness, id string) api.ApprovalSnapshot {
	t.Helper()
	got, err := h.e.ApprovalGet(t.Context(), api.Operator(), api.ApprovalGetRequest{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	return got.Approval
}

func TestApprovalHoldsSendUntilAllowedOnce(t *testing.T) {
	h, runOf := approvalHarness(t, nil, nil)
	events, stop := h.e.Subscribe(256)
	defer stop()
	res := sendFrom(h, runOf, sessA, sessB, "deploy please")
	if res.Status != api.StatusPendingApproval || res.ApprovalID == "" || !strings.Contains(res.Error, res.ApprovalID) {
		t.Fatalf("held send = %+v; want pending_approval with its approval id", res)
	}
	if n := len(runsOf(h, sessB, domain.RunKindSend)); n != 0 {
		t.Fatalf("a held send started %d run(s) in the target", n)
	}
	list, err := h.e.ApprovalList(t.Context(), api.Operator(), api.ApprovalListRequest{})
	if err != nil || len(list.Items) != 1 || list.Items[0].ID != res.ApprovalID || list.Items[0].Status != "pending" ||
		list.Items[0].SourceSessionKey != sessA || list.Items[0].Presentation.Detail != "deploy please" {
		t.Fatalf("approval.list = %+v, %v", list, err)
	}
	for pending := false; !pending; {
		select {
		case ev := <-events:
			pending = ev.Kind == domain.EventApproval && ev.Approval.ID == res.ApprovalID && ev.Approval.Status == domain.ApprovalPending
		case <-time.After(5 * time.Second):
			t.Fatal("no approval event for the held send")
		}
	}

	got := resolve(t, h, api.Operator(), res.ApprovalID, api.DecisionAllowOnce)
	if !got.Applied || got.Approval.Status != "allowed" || got.Approval.Decision != api.DecisionAllowOnce ||
		got.Approval.Reason != "user" || got.Approval.Resolver == nil || got.Approval.Resolver.ID != api.OperatorName {
		t.Fatalf("allow = %+v", got)
	}
	h.waitFor("the allowed send's run", func() bool { return len(runsOf(h, sessB, domain.RunKindSend)) == 1 })
	if m := runsOf(h, sessB, domain.RunKindSend)[0].Message; m != "deploy please" {
		t.Fatalf("the allowed send carried %q", m)
	}
	h.waitFor("the outcome in the requester session", func() bool { return posted(h, sessA, res.ApprovalID, "allowed", "runId") })

	// The first decision stands.
	if again := resolve(t, h, api.Operator(), res.ApprovalID, api.DecisionDeny); again.Applied || again.Approval.Status != "allowed" {
		t.Fatalf("a second decision = %+v; want applied=false and the first one kept", again)
	}
	hist, err := h.e.ApprovalHistory(t.Context(), api.Operator(), api.ApprovalHistoryRequest{})
	if err != nil || len(hist.Items) != 1 || hist.Items[0].ID != res.ApprovalID {
		t.Fatalf("approval.history = %+v, %v", hist, err)
	}
	// allow-once allows that call only: the next one is held again.
	if next := sendFrom(h, runOf, sessA, sessB, "and again"); next.Status != api.StatusPendingApproval {
		t.Fatalf("next send after allow-once = %+v", next)
	}
	if n := len(runsOf(h, sessB, domain.RunKindSend)); n != 1 {
		t.Fatalf("%d send runs; the allowed call must run exactly once", n)
	}
}

func TestApprovalAllowAlwaysStandsForTheEdge(t *testing.T) {
	h, runOf := approvalHarness(t, nil, nil)
	res := sendFrom(h, runOf, sessA, sessB, "one")
	resolve(t, h, api.Operator(), res.ApprovalID, api.DecisionAllowAlways)
	if next := sendFrom(h, runOf, sessA, sessB, "two"); next.Status != "accepted" {
		t.Fatalf("send on an edge allowed always = %+v; want accepted", next)
	}
	// Another edge is still held.
	if other := sendFrom(h, runOf, sessB, sessA, "three"); other.Status != api.StatusPendingApproval {
		t.Fatalf("send on another edge = %+v; want pending_approval", other)
	}
	h.waitFor("both runs", func() bool { return len(runsOf(h, sessB, domain.RunKindSend)) == 2 })
}

func TestApprovalDeniedSendNeverRuns(t *testing.T) {
	h, runOf := approvalHarness(t, nil, nil)
	res := sendFrom(h, runOf, sessA, sessB, "rm -rf")
	got := resolve(t, h, api.Operator(), res.ApprovalID, api.DecisionDeny)
	if !got.Applied || got.Approval.Status != "denied" || got.Approval.Decision != api.DecisionDeny {
		t.Fatalf("deny = %+v", got)
	}
	h.waitFor("the denial in the requester session", func() bool { return posted(h, sessA, res.ApprovalID, "denied") })
	if n := len(runsOf(h, sessB, domain.RunKindSend)); n != 0 {
		t.Fatalf("a denied send started %d run(s)", n)
	}
	// The decision is in the audit log, with who decided and what.
	recs := ofKind(auditRecords(t, h), audit.KindApproval)
	if len(recs) != 1 || recs[0].Target != res.ApprovalID || recs[0].Outcome != api.DecisionDeny || recs[0].Session != sessA {
		t.Fatalf("approval audit records = %+v, want the one deny of %s", recs, res.ApprovalID)
	}
}

func TestApprovalExpiresAndDenies(t *testing.T) {
	var skew atomic.Int64
	now := func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
	h, runOf := approvalHarness(t, now, func(c *config.Config) { c.Approvals.ExpiresSeconds = 60 })
	res := sendFrom(h, runOf, sessA, sessB, "later")
	if a := approvalOf(t, h, res.ApprovalID); a.ExpiresAtMs-a.CreatedAtMs != 60_000 {
		t.Fatalf("expiry = %d ms after creation; want approvals.expiresSeconds 60", a.ExpiresAtMs-a.CreatedAtMs)
	}
	skew.Store(int64(61 * time.Second))
	h.waitFor("the expiry", func() bool { return approvalOf(t, h, res.ApprovalID).Status == "expired" })
	a := approvalOf(t, h, res.ApprovalID)
	if a.Reason != "timeout" || a.Decision != "" || a.Resolver == nil || a.Resolver.Kind != "system" {
		t.Fatalf("expired approval = %+v", a)
	}
	h.waitFor("the expiry in the requester session", func() bool { return posted(h, sessA, res.ApprovalID, "expired") })
	if late := resolve(t, h, api.Operator(), res.ApprovalID, api.DecisionAllowOnce); late.Applied || late.Approval.Status != "expired" {
		t.Fatalf("a decision after expiry = %+v", late)
	}
	if n := len(runsOf(h, sessB, domain.RunKindSend)); n != 0 {
		t.Fatalf("an expired send started %d run(s)", n)
	}
}

// waitHeld calls the send with a timeout in the background and returns
// its answer's channel once the approval it raised is pending.
func waitHeld(t *testing.T, h *harness, runOf map[string]string, msg string) (string, <-chan api.SendResult) {
	t.Helper()
	events, stop := h.e.Subscribe(256)
	defer stop()
	out := make(chan api.SendResult, 1)
	go func() {
		out <- sendResult(t, h.call(Requester{SessionKey: sessA, RunID: runOf[sessA]}, api.ToolSessionsSend,
			fmt.Sprintf(`{"sessionKey":%q,"message":%q,"timeoutSeconds":20}`, sessB, msg)))
	}()
	for {
		select {
		case ev := <-events:
			if ev.Kind == domain.EventApproval && ev.Approval.Status == domain.ApprovalPending {
				return ev.Approval.ID, out
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the waiting send raised no approval")
		}
	}
}

func TestApprovalWaitingSendProceedsOnceAllowed(t *testing.T) {
	h, runOf := approvalHarness(t, nil, nil)
	id, out := waitHeld(t, h, runOf, "wait for me")
	resolve(t, h, api.Operator(), id, api.DecisionAllowOnce)
	var res api.SendResult
	select {
	case res = <-out:
	case <-time.After(15 * time.Second):
		t.Fatal("the waiting send did not return")
	}
	if res.Status != "ok" || res.Reply != "ok" || res.ApprovalID != id {
		t.Fatalf("waiting send after allow = %+v; want ok with the reply", res)
	}
	// The outbox's replay finds the run the waiting call made.
	h.waitFor("the held call's item delivered", func() bool {
		for _, it := range outboxOf(h, approvals.OutboxKind) {
			if it.Status == domain.OutboxDelivered {
				return true
			}
		}
		return false
	})
	if n := len(runsOf(h, sessB, domain.RunKindSend)); n != 1 {
		t.Fatalf("%d send runs; the allowed call must run exactly once", n)
	}
}

func TestApprovalWaitingSendRefusedOnDeny(t *testing.T) {
	h, runOf := approvalHarness(t, nil, nil)
	id, out := waitHeld(t, h, runOf, "no")
	resolve(t, h, api.Operator(), id, api.DecisionDeny)
	select {
	case res := <-out:
		if res.Status != "forbidden" || res.ApprovalID != id || !strings.Contains(res.Error, "denied") {
			t.Fatalf("waiting send after deny = %+v", res)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the waiting send did not return")
	}
}

func TestApprovalHoldsSpawn(t *testing.T) {
	h, runOf := approvalHarness(t, nil, func(c *config.Config) {
		c.Approvals.Rules = []config.ApprovalRule{{Tool: "spawn"}}
	})
	out := h.call(Requester{SessionKey: sessA, RunID: runOf[sessA]}, api.ToolSessionsSpawn, `{"task":"dig"}`)
	res, ok := out.Payload.(api.SpawnResult)
	if !ok || res.Status != api.StatusPendingApproval || res.ApprovalID == "" || res.ChildSessionKey != "" {
		t.Fatalf("held spawn = %#v", out.Payload)
	}
	// Sends are not held by a spawn rule.
	if s := sendFrom(h, runOf, sessA, sessB, "hi"); s.Status != "accepted" {
		t.Fatalf("send under a spawn-only rule = %+v", s)
	}
	resolve(t, h, api.Operator(), res.ApprovalID, api.DecisionAllowOnce)
	h.waitFor("the spawn's outcome", func() bool { return posted(h, sessA, res.ApprovalID, "childSessionKey agent:main:subagent:") })
}

func TestApprovalResolveNeedsApprovalsScopeAndOperatorRights(t *testing.T) {
	h, runOf := approvalHarness(t, nil, nil)
	res := sendFrom(h, runOf, sessA, sessB, "x")
	req := api.ApprovalResolveRequest{ID: res.ApprovalID, Kind: api.ApprovalKindPlugin, Decision: api.DecisionAllowOnce}
	for _, c := range []struct {
		name string
		p    api.Principal
		want string
	}{
		{"read-only token", api.Principal{Name: "ro", Scopes: api.ScopeRead}, "missing scope: operator.approvals"},
		{"write token", api.Principal{Name: "rw", Scopes: api.ScopeRead | api.ScopeWrite}, "missing scope: operator.approvals"},
		{"session-bound token", api.Principal{Name: "bound", Scopes: api.ScopeRead | api.ScopeWrite, Session: sessB}, "missing scope: operator.approvals"},
		{"session-bound token with every scope", api.Principal{Name: "bound", Scopes: api.AllScopes, Session: sessB}, "needs operator rights"},
	} {
		_, err := h.e.ApprovalResolve(t.Context(), c.p, req)
		if err == nil || domain.ErrorCode(err) != domain.CodeForbidden || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: resolve = %v; want forbidden %q", c.name, err, c.want)
		}
		if _, err := h.e.ApprovalList(t.Context(), c.p, api.ApprovalListRequest{}); err == nil {
			t.Errorf("%s: approval.list answered", c.name)
		}
	}
	if a := approvalOf(t, h, res.ApprovalID); a.Status != "pending" {
		t.Fatalf("a refused resolve changed the approval: %+v", a)
	}
	approver := api.Principal{Name: "approver", Scopes: api.ScopeApprovals}
	if got := resolve(t, h, approver, res.ApprovalID, api.DecisionDeny); !got.Applied || got.Approval.Resolver.ID != "approver" {
		t.Fatalf("resolve with operator.approvals = %+v", got)
	}
}

func TestApprovalResolveRefusesBadParams(t *testing.T) {
	h, runOf := approvalHarness(t, nil, nil)
	res := sendFrom(h, runOf, sessA, sessB, "x")
	for _, c := range []struct {
		req  api.ApprovalResolveRequest
		code string
		want string
	}{
		{api.ApprovalResolveRequest{ID: res.ApprovalID, Kind: "exec", Decision: "deny"}, domain.CodeInvalid, `kind "exec"`},
		{api.ApprovalResolveRequest{ID: res.ApprovalID, Kind: "plugin", Decision: "maybe"}, domain.CodeInvalid, `decision "maybe"`},
		{api.ApprovalResolveRequest{ID: "", Kind: "plugin", Decision: "deny"}, domain.CodeInvalid, "id is required"},
		{api.ApprovalResolveRequest{ID: "apr_nope", Kind: "plugin", Decision: "deny"}, domain.CodeNotFound, `"apr_nope" not found`},
	} {
		_, err := h.e.ApprovalResolve(t.Context(), api.Operator(), c.req)
		if domain.ErrorCode(err) != c.code || !strings.Contains(fmt.Sprint(err), c.want) {
			t.Errorf("resolve %+v = %v; want %s %q", c.req, err, c.code, c.want)
		}
	}
}

func TestApprovalSurvivesRestart(t *testing.T) {
	h, runOf := approvalHarness(t, nil, nil)
	res := sendFrom(h, runOf, sessA, sessB, "after restart")
	h.restartWith(func(*config.Config) {})
	list, err := h.e.ApprovalList(t.Context(), api.Operator(), api.ApprovalListRequest{})
	if err != nil || len(list.Items) != 1 || list.Items[0].ID != res.ApprovalID {
		t.Fatalf("pending after restart = %+v, %v", list, err)
	}
	resolve(t, h, api.Operator(), res.ApprovalID, api.DecisionAllowOnce)
	h.waitFor("the run after restart", func() bool { return len(runsOf(h, sessB, domain.RunKindSend)) == 1 })
}

func TestApprovalRetryWithIdempotencyKeyFindsItsApproval(t *testing.T) {
	h, runOf := approvalHarness(t, nil, nil)
	args := fmt.Sprintf(`{"sessionKey":%q,"message":"once","timeoutSeconds":0,"idempotencyKey":"k1"}`, sessB)
	req := Requester{SessionKey: sessA, RunID: runOf[sessA]}
	first := sendResult(t, h.call(req, api.ToolSessionsSend, args))
	second := sendResult(t, h.call(req, api.ToolSessionsSend, args))
	if first.ApprovalID == "" || second.ApprovalID != first.ApprovalID {
		t.Fatalf("retry raised %q after %q; want the same approval", second.ApprovalID, first.ApprovalID)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	resolve(t, h, api.Operator(), first.ApprovalID, api.DecisionAllowOnce)
	h.waitFor("the run", func() bool { return len(runsOf(h, sessB, domain.RunKindSend)) == 1 })
	third := sendResult(t, h.e.callTool(ctx, req, api.ToolSessionsSend, []byte(args)))
	if third.RunID == "" || third.ApprovalID != first.ApprovalID {
		t.Fatalf("retry after the allow = %+v; want the allowed call's run", third)
	}
	if n := len(runsOf(h, sessB, domain.RunKindSend)); n != 1 {
		t.Fatalf("%d send runs for one idempotency key", n)
	}
}

func TestLoopBreakerAsksAnOperatorToResume(t *testing.T) {
	h, runOf := loopHarness(t, func(c *config.Config) {
		c.Session.AgentToAgent.LoopBreaker.MaxMessages = 1
		// Approvals are on; this rule holds nothing the loop sends.
		c.Approvals.Rules = []config.ApprovalRule{{Tool: "spawn"}}
	})
	a, b := "agent:main:a", "agent:main:b"
	sendFrom(h, runOf, a, b, "one")
	if res := sendFrom(h, runOf, a, b, "two"); res.Status != "paused" {
		t.Fatalf("second message = %+v; want paused", res)
	}
	list, err := h.e.ApprovalList(t.Context(), api.Operator(), api.ApprovalListRequest{})
	if err != nil || len(list.Items) != 1 || list.Items[0].Presentation.ToolName != "loops.resume" ||
		strings.Join(list.Items[0].Presentation.AllowedDecisions, ",") != "allow-once,deny" {
		t.Fatalf("approvals after the pause = %+v, %v; want one asking to resume", list, err)
	}
	before := len(runsOf(h, b, domain.RunKindSend))
	resolve(t, h, api.Operator(), list.Items[0].ID, api.DecisionAllowOnce)
	h.waitFor("the held message released", func() bool { return len(runsOf(h, b, domain.RunKindSend)) == before+1 })
	if got := runsOf(h, b, domain.RunKindSend)[0].Message; got != "two" {
		t.Fatalf("released message = %q", got)
	}
	pauses, err := h.e.LoopsList(t.Context(), api.Operator())
	if err != nil || len(pauses.Pauses) != 0 {
		t.Fatalf("pauses after the allow = %+v, %v", pauses, err)
	}
}

func TestApprovalFromAChatCommand(t *testing.T) {
	h, runOf := approvalHarness(t, nil, func(c *config.Config) { c.Session.Owners = []string{"alice"} })
	res := sendFrom(h, runOf, sessA, sessB, "ship it")
	ctx := t.Context()
	if _, err := h.e.chat(ctx, api.ChatRequest{SessionKey: "ops", Message: "/approve " + res.ApprovalID, Channel: "discord", SenderID: "mallory"}); domain.ErrorCode(err) != domain.CodeForbidden {
		t.Fatalf("/approve from a stranger = %v; want forbidden", err)
	}
	got, err := h.e.chat(ctx, api.ChatRequest{SessionKey: "ops", Message: "/approve " + res.ApprovalID, Channel: "discord", SenderID: "alice"})
	if err != nil || !strings.Contains(got.Reply, "allowed (allow-once)") {
		t.Fatalf("/approve from an owner = %+v, %v", got, err)
	}
	a := approvalOf(t, h, res.ApprovalID)
	if a.Resolver == nil || a.Resolver.Kind != "channel" || a.Resolver.ID != "discord/alice" {
		t.Fatalf("resolver = %+v; want the channel and sender", a.Resolver)
	}
	h.waitFor("the allowed send's run", func() bool { return len(runsOf(h, sessB, domain.RunKindSend)) == 1 })
	again, err := h.e.chat(ctx, api.ChatRequest{SessionKey: "ops", Message: "/deny " + res.ApprovalID, Channel: "discord", SenderID: "alice"})
	if err != nil || !strings.Contains(again.Reply, "already allowed") {
		t.Fatalf("/deny after the allow = %+v, %v", again, err)
	}
}
