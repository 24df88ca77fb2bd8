package tools

import (
	"context"
	"encoding/json"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// fakeService records the typed request a tool call turned into.
type fakeService struct {
	got any
}

var _ api.Service = (*fakeService)(nil)

func (f *fakeService) ListSessions(_ context.Context, _ api.Principal, r api.ListRequest) (api.ListResult, error) {
	f.got = r
	return api.ListResult{Sessions: []api.SessionRow{}}, nil
}

func (f *fakeService) History(_ context.Context, _ api.Principal, r api.HistoryRequest) (api.HistoryResult, error) {
	f.got = r
	return api.HistoryResult{}, nil
}

func (f *fakeService) Send(_ context.Context, _ api.Principal, r api.SendRequest) (api.SendResult, error) {
	f.got = r
	return api.SendResult{Status: "accepted"}, nil
}

func (f *fakeService) Spawn(_ context.Context, _ api.Principal, r api.SpawnRequest) (api.SpawnResult, error) {
	f.got = r
	return api.SpawnResult{Status: "accepted"}, nil
}

func (f *fakeService) AgentsList(context.Context, api.Principal) (api.AgentsListResult, error) {
	f.got = "agents"
	return api.AgentsListResult{}, nil
}

func (f *fakeService) Subagents(_ context.Context, _ api.Principal, r api.SubagentsRequest) (api.SubagentsResult, error) {
	f.got = r
	return api.SubagentsResult{Status: "ok", Action: r.Action}, nil
}

func (f *fakeService) CallTool(ctx context.Context, p api.Principal, name string, args json.RawMessage) api.ToolOutcome {
	return Call(ctx, f, p, name, args)
}

func (f *fakeService) Chat(context.Context, api.Principal, api.ChatRequest) (api.ChatResult, error) {
	return api.ChatResult{}, nil
}

func (f *fakeService) GetRun(context.Context, api.Principal, string) (domain.Run, error) {
	return domain.Run{}, nil
}

func (f *fakeService) WaitRun(_ context.Context, _ api.Principal, r api.WaitRequest) (domain.Run, error) {
	f.got = r
	return domain.Run{ID: r.RunID, Status: domain.RunOK}, nil
}

func (f *fakeService) CancelRun(context.Context, api.Principal, string) (api.CancelResult, error) {
	return api.CancelResult{}, nil
}

func (f *fakeService) ListRuns(context.Context, api.Principal, api.RunsRequest) ([]domain.Run, error) {
	return nil, nil
}

func (f *fakeService) Patch(context.Context, api.Principal, api.PatchRequest) (domain.Session, error) {
	return domain.Session{}, nil
}

func (f *fakeService) Reset(context.Context, api.Principal, api.ResetRequest) (domain.Session, error) {
	return domain.Session{}, nil
}

func (f *fakeService) Delete(context.Context, api.Principal, api.DeleteRequest) (api.DeleteResult, error) {
	return api.DeleteResult{}, nil
}

func (f *fakeService) Outbox(context.Context, api.Principal, api.OutboxRequest) ([]domain.OutboxItem, error) {
	return nil, nil
}

func (f *fakeService) UsageReport(context.Context, api.Principal, api.UsageRequest) (api.UsageResult, error) {
	return api.UsageResult{}, nil
}

func (f *fakeService) Resolve(context.Context, api.Principal, api.ResolveRequest) (api.ResolveResult, error) {
	return api.ResolveResult{}, nil
}

func (f *fakeService) GetSession(context.Context, api.Principal, string) (api.SessionRow, error) {
	return api.SessionRow{}, nil
}

func (f *fakeService) Defaults(context.Context, api.Principal) (api.Defaults, error) {
	return api.Defaults{}, nil
}

func (f *fakeService) Deliver(context.Context, api.Principal, api.DeliverRequest) (api.DeliverResult, error) {
	return api.DeliverResult{}, nil
}

func (f *fakeService) Yield(_ context.Context, _ api.Principal, r api.YieldRequest) (api.YieldResult, error) {
	f.got = r
	return api.YieldResult{Status: "yielded", Message: r.Message}, nil
}

func (f *fakeService) SessionStatus(_ context.Context, _ api.Principal, r api.StatusRequest) (api.StatusResult, error) {
	f.got = r
	return api.StatusResult{Status: "ok"}, nil
}
