package engine

import (
	"context"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/approvals"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// newApprover wires package approvals: an allowed call is carried out
// through the engine's send and spawn as its requester (approvedAs).
func (e *Engine) newApprover() *approvals.Approver {
	return approvals.New(approvals.Options{Store: e.store, Config: e.conf, AgentOf: e.keys.AgentOf, Audit: e.audit,
		Publish: e.bus.publish, Poke: e.poke, IsOwner: e.sessions.IsOwner, Log: e.log, Now: e.now, NewID: e.newID,
		Send: func(ctx context.Context, a domain.Approval, p api.SendRequest) (api.SendResult, error) {
			return e.send(ctx, approvedAs(Requester{}, a), p)
		},
		Spawn: func(ctx context.Context, a domain.Approval, p api.SpawnRequest) (api.SpawnResult, error) {
			return e.spawn(ctx, approvedAs(Requester{}, a), p)
		},
		Resume: func(ctx context.Context, from, to string) (int, error) { return e.guards.Resume(ctx, from, to) },
		Post: func(ctx context.Context, key string, msg domain.Message) error {
			_, err := e.rt.Inject(ctx, key, []domain.Message{msg}, func(tx domain.Tx) (domain.Session, error) {
				s, _, err := e.sessions.Ensure(tx, key, nil)
				return s, err
			})
			return err
		},
	})
}

// holdSend is the approval gate of sessions_send (package approvals);
// an operator's call and one an approval allowed pass it.
func (e *Engine) holdSend(ctx context.Context, req Requester, p api.SendRequest, target, display, channel, chatType string) (api.SendResult, bool, error) {
	if req.Operator || req.approved != "" {
		return api.SendResult{}, false, nil
	}
	targetAgent := e.keys.AgentOf(target)
	c := approvals.Call{Tool: approvals.ToolSend, RequesterKey: req.key(e), RequesterAgent: req.agent(e),
		TargetKey: target, TargetAgent: targetAgent, TargetChannel: channel, ChatType: chatType, Remote: e.sessions.IsRemote(targetAgent)}
	o := approvals.Origin{RunID: req.RunID, Key: req.scopeKey(api.OpSessionsSend, p.IdempotencyKey)}
	return e.approvals.HoldSend(ctx, c, o, p, display, func(ctx context.Context, a domain.Approval, p api.SendRequest) (api.SendResult, error) {
		return e.send(ctx, approvedAs(req, a), p)
	})
}

// holdSpawn is the approval gate of sessions_spawn of agent.
func (e *Engine) holdSpawn(ctx context.Context, req Requester, p api.SpawnRequest, agent string) (api.SpawnResult, bool, error) {
	if req.Operator || req.approved != "" {
		return api.SpawnResult{}, false, nil
	}
	c := approvals.Call{Tool: approvals.ToolSpawn, RequesterKey: req.key(e), RequesterAgent: req.agent(e), TargetAgent: agent}
	o := approvals.Origin{RunID: req.RunID, Key: req.scopeKey(api.OpSessionsSpawn, p.IdempotencyKey)}
	return e.approvals.HoldSpawn(ctx, c, o, p, func(ctx context.Context, a domain.Approval, p api.SpawnRequest) (api.SpawnResult, error) {
		return e.spawn(ctx, approvedAs(req, a), p)
	})
}

// approvedAs is the requester that carries out an allowed call: the
// gate lets it through, and its idempotency key is the approval's, so
// the waiting tool call and the outbox's replay make one run between
// them.
func approvedAs(req Requester, a domain.Approval) Requester {
	req.SessionKey, req.resolved = a.RequesterKey, a.RequesterKey
	req.IdempotencyKey, req.scoped, req.approved = "approval:"+a.ID, true, a.ID
	return req
}

// ApprovalGet is approval.get: one approval by its full id.
func (e *Engine) ApprovalGet(ctx context.Context, p api.Principal, r api.ApprovalGetRequest) (api.ApprovalGetResult, error) {
	if _, err := e.enter(p, api.OpApprovalGet); err != nil {
		return api.ApprovalGetResult{}, err
	}
	return e.approvals.Get(ctx, r)
}

// ApprovalResolve is approval.resolve: the first decision on a pending
// approval is recorded; later ones answer applied=false.
func (e *Engine) ApprovalResolve(ctx context.Context, p api.Principal, r api.ApprovalResolveRequest) (api.ApprovalResolveResult, error) {
	if _, err := e.enter(p, api.OpApprovalResolve); err != nil {
		return api.ApprovalResolveResult{}, err
	}
	return e.approvals.Resolve(ctx, p.Name, r)
}

// ApprovalList is approval.list (switchboard's): the pending approvals.
func (e *Engine) ApprovalList(ctx context.Context, p api.Principal, _ api.ApprovalListRequest) (api.ApprovalListResult, error) {
	if _, err := e.enter(p, api.OpApprovalList); err != nil {
		return api.ApprovalListResult{}, err
	}
	return e.approvals.Pending(ctx)
}

// ApprovalHistory is approval.history: decided approvals, a page at a
// time.
func (e *Engine) ApprovalHistory(ctx context.Context, p api.Principal, r api.ApprovalHistoryRequest) (api.ApprovalHistoryResult, error) {
	if _, err := e.enter(p, api.OpApprovalHistory); err != nil {
		return api.ApprovalHistoryResult{}, err
	}
	return e.approvals.History(ctx, r)
}
