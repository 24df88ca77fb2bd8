package auditor

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/audit"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// fakeTx keeps what is appended to the chain inside a transaction.
type fakeTx struct {
	domain.Tx
	got *[]audit.Entry
}

func (t fakeTx) AppendAudit(e audit.Entry) error { *t.got = append(*t.got, e); return nil }

// fakeStore is a store whose audit log is a slice: Update appends to it,
// ListAudit reads it as the stores do.
type fakeStore struct {
	domain.Store
	entries []audit.Entry
}

func (s *fakeStore) Update(_ context.Context, fn func(domain.Tx) error) error {
	return fn(fakeTx{got: &s.entries})
}

func (s *fakeStore) AuditState(context.Context) (audit.State, error) {
	return audit.State{Head: audit.Anchor{Seq: int64(len(s.entries))}}, nil
}

func (s *fakeStore) ListAudit(_ context.Context, q audit.Query) ([]audit.Record, error) {
	var out []audit.Record
	keep := func(i int) bool {
		return len(q.Kinds) == 0 || strings.Contains(string(kindsOf(q.Kinds)), "|"+string(s.entries[i].Kind)+"|")
	}
	if q.Desc {
		from := len(s.entries)
		if q.Before > 0 {
			from = int(q.Before) - 1
		}
		for i := from - 1; i >= 0 && len(out) < q.Limit; i-- {
			if keep(i) {
				out = append(out, audit.Record{Seq: int64(i + 1), Entry: s.entries[i]})
			}
		}
		return out, nil
	}
	for i := int(q.After); i < len(s.entries) && len(out) < q.Limit; i++ {
		if keep(i) {
			out = append(out, audit.Record{Seq: int64(i + 1), Entry: s.entries[i]})
		}
	}
	return out, nil
}

func (s *fakeStore) PruneAudit(context.Context, int64, int64) (int64, error) { return 0, nil }

func kindsOf(ks []audit.Kind) string {
	out := "|"
	for _, k := range ks {
		out += string(k) + "|"
	}
	return out
}

func newAuditor(s *fakeStore) *Auditor {
	cfg := &config.Config{}
	return New(Options{Log: audit.NewLog(s, func() time.Time { return time.UnixMilli(1000) }, nil),
		Config: func() *config.Config { return cfg }, AgentOf: func(key string) string { return strings.Split(key, ":")[1] },
		Logger: nil})
}

func TestRunRecordsCreatedSendsAndSpawnsAndBudgetStops(t *testing.T) {
	for _, c := range []struct {
		name string
		from domain.RunStatus
		run  domain.Run
		want []audit.Entry
	}{
		{"a send's run created", domain.RunNew, domain.Run{ID: "r1", Kind: domain.RunKindSend, RequesterKey: "agent:main:a", SessionKey: "agent:main:b", AgentID: "main"},
			[]audit.Entry{{At: 1000, Kind: audit.KindMessage, Actor: "agent", Op: api.ToolSessionsSend, Session: "agent:main:a", Target: "agent:main:b", RunID: "r1", AgentID: "main", Outcome: "ok"}}},
		{"a spawn by the operator", domain.RunNew, domain.Run{ID: "r2", Kind: domain.RunKindSubagent, SessionKey: "agent:ops:subagent:x", AgentID: "ops"},
			[]audit.Entry{{At: 1000, Kind: audit.KindSpawn, Actor: api.OperatorName, Op: api.ToolSessionsSpawn, Target: "agent:ops:subagent:x", RunID: "r2", AgentID: "ops", Outcome: "ok"}}},
		{"a chat turn is not recorded", domain.RunNew, domain.Run{ID: "r3", Kind: domain.RunKindChat, SessionKey: "agent:main:main"}, nil},
		{"a budget stop", domain.RunRunning, domain.Run{ID: "r4", Status: domain.RunError, Error: "budget exceeded: tokens 5 of 5", SessionKey: "agent:main:main"},
			[]audit.Entry{{At: 1000, Kind: audit.KindBudgetStop, Actor: api.OperatorName, Op: "run", Target: "agent:main:main", RunID: "r4", Outcome: "stopped", Detail: "budget exceeded: tokens 5 of 5"}}},
		{"another failure is not", domain.RunRunning, domain.Run{ID: "r5", Status: domain.RunError, Error: "model error"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []audit.Entry
			if err := newAuditor(&fakeStore{}).Run(fakeTx{got: &got}, c.from, c.run); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Fatalf("entries (-want +got):\n%s", d)
			}
		})
	}
}

func TestEndedRecordsRefusalsAndAdminActions(t *testing.T) {
	s := &fakeStore{}
	au := newAuditor(s)
	ctx := t.Context()
	agent := api.Principal{Name: "agent", Session: "agent:main:a", RunID: "r1", ToolCallID: "t1"}
	au.Ended(ctx, agent, api.OpSessionsHistory, " agent:main:b ", domain.Errorf(domain.CodeForbidden, "not visible"))
	au.Ended(ctx, api.Principal{}, api.OpSessionsReset, "agent:main:b", nil)
	au.Ended(ctx, api.Principal{}, api.OpSessionsList, "", nil)
	au.Ended(ctx, api.Principal{}, api.OpSessionsReset, "agent:main:b", errors.New("store down"))
	au.SendEnded(ctx, agent, api.SendRequest{Label: "ops"}, api.SendResult{Status: "forbidden", Error: "denied by policy"}, nil)
	au.SendEnded(ctx, agent, api.SendRequest{SessionKey: "b"}, api.SendResult{Status: "ok", MessageID: "m1", SessionKey: "agent:main:b"}, nil)
	want := []audit.Entry{
		{At: 1000, Kind: audit.KindRefusal, Actor: "agent", Surface: "agent", Op: string(api.OpSessionsHistory), Session: "agent:main:a",
			Target: "agent:main:b", RunID: "r1", AgentID: "main", ToolCallID: "t1", Outcome: "refused", Detail: "not visible"},
		{At: 1000, Kind: audit.KindAdmin, Actor: api.OperatorName, Op: string(api.OpSessionsReset), Target: "agent:main:b", Outcome: "ok"},
		{At: 1000, Kind: audit.KindRefusal, Actor: "agent", Surface: "agent", Op: string(api.OpSessionsSend), Session: "agent:main:a",
			Target: "ops", RunID: "r1", AgentID: "main", ToolCallID: "t1", Outcome: "refused", Detail: "denied by policy"},
		{At: 1000, Kind: audit.KindMessage, Actor: "agent", Surface: "agent", Op: string(api.OpSessionsSend), Session: "agent:main:a",
			Target: "agent:main:b", RunID: "r1", AgentID: "main", ToolCallID: "t1", Outcome: "ok", Detail: "notify"},
	}
	if d := cmp.Diff(want, s.entries); d != "" {
		t.Fatalf("entries (-want +got):\n%s", d)
	}
}

func TestOpenclawEvent(t *testing.T) {
	run := audit.Record{Seq: 3, Entry: audit.Entry{At: 50, Kind: audit.KindSpawn, Actor: "agent", Session: "agent:main:a",
		Target: "agent:ops:subagent:x", RunID: "r1", AgentID: "main"}}
	refused := audit.Record{Seq: 4, Entry: audit.Entry{At: 60, Kind: audit.KindRefusal, Op: "sessions_send", Session: "agent:main:a",
		RunID: "r1", AgentID: "main", ToolCallID: "t1"}}
	allowed := refused
	allowed.Kind, allowed.Outcome = audit.KindApproval, "allow-once"
	for _, c := range []struct {
		name string
		rec  audit.Record
		want *api.AuditEvent
	}{
		{"a spawn's run", run, &api.AuditEvent{EventID: "audit-3", Sequence: 3, SourceSequence: 3, OccurredAt: 50, AgentID: "main", RunID: "r1",
			Actor: api.AuditActor{Type: "agent", ID: "agent:main:a"}, Redaction: "metadata_only",
			Kind: "agent_run", Action: "agent.run.started", Status: "started", SessionKey: "agent:ops:subagent:x"}},
		{"a refused tool call", refused, &api.AuditEvent{EventID: "audit-4", Sequence: 4, SourceSequence: 4, OccurredAt: 60, AgentID: "main", RunID: "r1",
			ToolCallID: "t1", Actor: api.AuditActor{Type: "system", ID: "system"}, Redaction: "metadata_only", Kind: "tool_action",
			Action: "tool.action.finished", SessionKey: "agent:main:a", ToolName: "sessions_send", Status: "blocked", ErrorCode: "tool_blocked"}},
		{"an allowed approval", allowed, &api.AuditEvent{EventID: "audit-4", Sequence: 4, SourceSequence: 4, OccurredAt: 60, AgentID: "main", RunID: "r1",
			ToolCallID: "t1", Actor: api.AuditActor{Type: "system", ID: "system"}, Redaction: "metadata_only", Kind: "tool_action",
			Action: "tool.action.finished", SessionKey: "agent:main:a", ToolName: "sessions_send", Status: "succeeded"}},
		{"no run", audit.Record{Seq: 5, Entry: audit.Entry{Kind: audit.KindAdmin, AgentID: "main"}}, nil},
		{"a refusal outside a tool call", audit.Record{Seq: 6, Entry: audit.Entry{Kind: audit.KindRefusal, RunID: "r1", AgentID: "main"}}, nil},
		{"a token use", audit.Record{Seq: 7, Entry: audit.Entry{Kind: audit.KindTokenUse, RunID: "r1", AgentID: "main"}}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := openclawEvent(c.rec)
			if c.want == nil {
				if ok {
					t.Fatalf("got event %+v, want none", got)
				}
				return
			}
			if d := cmp.Diff(*c.want, got); !ok || d != "" {
				t.Fatalf("event ok=%v (-want +got):\n%s", ok, d)
			}
		})
	}
}

func TestListRefusesBadParams(t *testing.T) {
	au := newAuditor(&fakeStore{})
	neg := int64(-1)
	for _, c := range []struct {
		req  api.AuditListRequest
		want string
	}{
		{api.AuditListRequest{Cursor: "0"}, "cursor"},
		{api.AuditListRequest{Cursor: "x1"}, "cursor"},
		{api.AuditListRequest{Kind: "run"}, "kind must be one of agent_run|tool_action"},
		{api.AuditListRequest{Status: "ok"}, "status must be one of"},
		{api.AuditListRequest{After: &neg}, "after must be at least 0"},
		{api.AuditListRequest{Limit: new(int64(501))}, "limit"},
	} {
		_, err := au.List(t.Context(), c.req)
		if domain.ErrorCode(err) != domain.CodeInvalid || !strings.Contains(err.Error(), c.want) {
			t.Errorf("List(%+v) = %v, want an invalid-request error naming %q", c.req, err, c.want)
		}
	}
}

func TestListPagesNewestFirstAndChainOldestFirst(t *testing.T) {
	s := &fakeStore{}
	for i := range 7 {
		s.entries = append(s.entries, audit.Entry{Kind: audit.KindMessage, RunID: "r", AgentID: "main", Target: "agent:main:b", At: int64(i)})
		s.entries = append(s.entries, audit.Entry{Kind: audit.KindTokenUse, At: int64(i)})
	}
	au := newAuditor(s)
	var seqs []int64
	cursor := ""
	for range 10 {
		res, err := au.List(t.Context(), api.AuditListRequest{Limit: new(int64(3)), Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range res.Events {
			seqs = append(seqs, ev.Sequence)
		}
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	if d := cmp.Diff([]int64{13, 11, 9, 7, 5, 3, 1}, seqs); d != "" {
		t.Fatalf("audit.list sequences (-want +got):\n%s", d)
	}
	res, err := au.Chain(t.Context(), api.AuditChainRequest{Limit: new(int64(5)), Cursor: "10"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Records) != 4 || res.Records[0].Seq != 11 || res.NextCursor != "" || res.Head.Seq != 14 {
		t.Fatalf("chain page after 10: %d records from %v, next %q, head %d", len(res.Records), res.Records, res.NextCursor, res.Head.Seq)
	}
}
