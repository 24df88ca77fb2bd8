package engine

import (
	"context"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/audit"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// auditRecords reads the whole chain and checks that it verifies.
func auditRecords(t *testing.T, h *harness) []audit.Record {
	t.Helper()
	s := h.st
	if _, brk, err := audit.VerifyStore(t.Context(), s, 100); err != nil || brk != nil {
		t.Fatalf("verify: %v %v", brk, err)
	}
	recs, err := s.ListAudit(t.Context(), audit.Query{Limit: 10_000})
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func ofKind(recs []audit.Record, k audit.Kind) []audit.Record {
	var out []audit.Record
	for _, r := range recs {
		if r.Kind == k {
			out = append(out, r)
		}
	}
	return out
}

// TestEveryGateRefusalIsRecorded drives refusals of every kind through the
// real gate, on the typed calls and the tool calls, and wants exactly one
// refusal record for each, naming its operation.
func TestEveryGateRefusalIsRecorded(t *testing.T) {
	h := newHarness(t, nil, func(c *config.Config) {
		c.Agents.List = append(c.Agents.List, config.AgentConfig{ID: "other"})
	})
	ctx := context.Background()
	h.chat("main", "hello")
	readOnly := api.Principal{Name: "viewer", Scopes: api.ScopeRead}
	bound := api.Principal{Name: "bound", Scopes: api.AllScopes, Session: "agent:main:main"}
	asMain := api.Operator().ActingAs("agent:main:main")
	agent := api.Principal{Name: "agent", Scopes: api.AllScopes, Session: "agent:main:main", RunID: "run-x", ToolCallID: "call-1"}
	refusals := []struct {
		name string
		op   api.Op
		call func() error
	}{
		{"missing scope", api.OpSessionsPatch, func() error {
			_, err := h.e.Patch(ctx, readOnly, api.PatchRequest{Key: "main", Label: api.SetValue("x")})
			return err
		}},
		{"bound credential acting as another", api.OpSessionsList, func() error {
			_, err := h.e.ListSessions(ctx, bound.ActingAs("agent:main:other"), api.ListRequest{})
			return err
		}},
		{"operator only", api.OpOutboxList, func() error {
			_, err := h.e.Outbox(ctx, asMain, api.OutboxRequest{})
			return err
		}},
		{"operator only usage", api.OpUsageReport, func() error {
			_, err := h.e.UsageReport(ctx, asMain, api.UsageRequest{})
			return err
		}},
		{"send outside visibility", api.OpSessionsSend, func() error {
			res, err := h.e.Send(ctx, asMain, api.SendRequest{SessionKey: research, Message: "hi"})
			if err == nil && res.Status != "forbidden" {
				t.Errorf("send: %+v", res)
			}
			return err
		}},
		{"spawn under an agent not allowed", api.OpSessionsSpawn, func() error {
			_, err := h.e.Spawn(ctx, asMain, api.SpawnRequest{Task: "x", AgentID: "other"})
			return err
		}},
		{"history outside visibility", api.OpSessionsHistory, func() error {
			_, err := h.e.History(ctx, asMain, api.HistoryRequest{SessionKey: "agent:other:main"})
			return err
		}},
		{"agent tool call", api.OpSessionsSend, func() error {
			out := h.e.CallTool(ctx, agent, api.ToolSessionsSend, []byte(`{"sessionKey":"agent:main:research","message":"hi"}`))
			if !out.IsError {
				t.Errorf("tool call not refused: %s", out.JSON())
			}
			return nil
		}},
		{"audit log as a requester", api.OpAuditChain, func() error {
			_, err := h.e.AuditChain(ctx, asMain, api.AuditChainRequest{})
			return err
		}},
	}
	for i, r := range refusals {
		if err := r.call(); err != nil && domain.ErrorCode(err) != domain.CodeForbidden && domain.ErrorCode(err) != domain.CodeNotFound {
			t.Fatalf("%s: %v", r.name, err)
		}
		got := ofKind(auditRecords(t, h), audit.KindRefusal)
		if len(got) != i+1 {
			t.Fatalf("%s: %d refusal records after %d refusals: %+v", r.name, len(got), i+1, got)
		}
		last := got[i]
		if last.Op != string(r.op) || last.Outcome != "refused" || last.Detail == "" {
			t.Fatalf("%s: record %+v", r.name, last)
		}
	}
	last := ofKind(auditRecords(t, h), audit.KindRefusal)[7]
	if last.RunID != "run-x" || last.ToolCallID != "call-1" || last.Surface != "agent" || last.AgentID != "main" {
		t.Fatalf("agent refusal: %+v", last)
	}
	// An agent's refused tool call is also an OpenClaw tool_action event.
	list, err := h.e.AuditList(ctx, api.Operator(), api.AuditListRequest{Kind: "tool_action"})
	if err != nil || len(list.Events) != 1 || list.Events[0].ToolName != api.ToolSessionsSend || list.Events[0].Status != "blocked" {
		t.Fatalf("audit.list: %+v %v", list, err)
	}
}

// TestSendsSpawnsAndAdminActionsAreRecorded: a send's and a spawn's runs
// are recorded with them, an admin action after it succeeds, and the
// chain answers on both read operations.
func TestSendsSpawnsAndAdminActionsAreRecorded(t *testing.T) {
	h := newHarness(t, nil, nil)
	ctx := context.Background()
	h.chat("main", "hello")
	zero := 0
	if _, err := h.e.Send(ctx, api.Operator().ActingAs("agent:main:main"), api.SendRequest{SessionKey: "main", Message: "note", Mode: api.SendNotify}); err != nil {
		t.Fatal(err)
	}
	send, err := h.e.Send(ctx, api.Operator(), api.SendRequest{SessionKey: research, Message: "hi", TimeoutSeconds: &zero})
	if err != nil || send.RunID == "" {
		t.Fatalf("send: %+v %v", send, err)
	}
	spawn, err := h.e.Spawn(ctx, api.Operator().ActingAs("agent:main:main"), api.SpawnRequest{Task: "sum up"})
	if err != nil || spawn.RunID == "" {
		t.Fatalf("spawn: %+v %v", spawn, err)
	}
	if _, err := h.e.Patch(ctx, api.Operator(), api.PatchRequest{Key: "main", Label: api.SetValue("lbl")}); err != nil {
		t.Fatal(err)
	}
	if err := h.e.Idle(ctx); err != nil {
		t.Fatal(err)
	}
	recs := auditRecords(t, h)
	byRun := map[string]audit.Record{}
	for _, r := range recs {
		byRun[r.RunID] = r
	}
	if r := byRun[send.RunID]; r.Kind != audit.KindMessage || r.Target != research {
		t.Fatalf("send record: %+v", r)
	}
	if r := byRun[spawn.RunID]; r.Kind != audit.KindSpawn || r.Session != "agent:main:main" || r.Actor != "agent" {
		t.Fatalf("spawn record: %+v", r)
	}
	if n := len(ofKind(recs, audit.KindMessage)); n < 3 { // the notify, the send, its announce
		t.Fatalf("message records: %d", n)
	}
	admin := ofKind(recs, audit.KindAdmin)
	if len(admin) != 1 || admin[0].Op != string(api.OpSessionsPatch) || admin[0].Target != "main" {
		t.Fatalf("admin records: %+v", admin)
	}
	page, err := h.e.AuditChain(ctx, api.Operator(), api.AuditChainRequest{Limit: ptr(int64(2))})
	if err != nil || len(page.Records) != 2 || page.NextCursor != "2" || page.Head.Seq != int64(len(recs)) {
		t.Fatalf("chain page: %+v %v", page, err)
	}
	list, err := h.e.AuditList(ctx, api.Operator(), api.AuditListRequest{RunID: spawn.RunID})
	if err != nil || len(list.Events) != 1 || list.Events[0].Kind != "agent_run" || list.Events[0].Actor.Type != "agent" {
		t.Fatalf("audit.list: %+v %v", list, err)
	}
	if _, err := h.e.AuditList(ctx, api.Operator(), api.AuditListRequest{Cursor: "x"}); domain.ErrorCode(err) != domain.CodeInvalid {
		t.Fatalf("bad cursor: %v", err)
	}
}

func ptr[T any](v T) *T { return &v }
