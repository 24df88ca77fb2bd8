package engine

import (
	"context"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/policy"
	"github.com/switchboard-go/switchboard/internal/send"
	"github.com/switchboard-go/switchboard/internal/spawn"
)

// agentsList lists the agents req may spawn under.
func (e *Engine) agentsList(req Requester) policy.AgentsListResult {
	return policy.AgentsList(e.cfg, req.agent(e))
}

// Children lists the sub-agent runs a session spawned, newest first.
func (e *Engine) Children(ctx context.Context, requesterKey string) ([]api.ChildRow, error) {
	return e.spawner.Children(ctx, requesterKey)
}

// spawn is sessions_spawn as req: the idempotency key scoped to req, then
// package spawn.
func (e *Engine) spawn(ctx context.Context, req Requester, p api.SpawnRequest) (api.SpawnResult, error) {
	if p.IdempotencyKey == "" {
		p.IdempotencyKey = req.IdempotencyKey
	}
	p.IdempotencyKey = req.scopeKey(api.OpSessionsSpawn, p.IdempotencyKey)
	hold := func(ctx context.Context, p api.SpawnRequest, agent string) (api.SpawnResult, bool, error) {
		return e.holdSpawn(ctx, req, p, agent)
	}
	return e.spawner.Spawn(ctx, spawn.Caller{Key: req.key(e), Agent: req.agent(e), RunID: req.RunID, Hold: hold}, p)
}

// send is sessions_send as req: the idempotency key scoped to req, then
// package send.
func (e *Engine) send(ctx context.Context, req Requester, p api.SendRequest) (api.SendResult, error) {
	if p.IdempotencyKey == "" {
		p.IdempotencyKey = req.IdempotencyKey
	}
	p.IdempotencyKey = req.scopeKey(api.OpSessionsSend, p.IdempotencyKey)
	hold := func(ctx context.Context, p api.SendRequest, target, display, channel, chatType string) (api.SendResult, bool, error) {
		return e.holdSend(ctx, req, p, target, display, channel, chatType)
	}
	return e.sender.Send(ctx, send.Caller{Key: req.key(e), Agent: req.agent(e), Operator: req.Operator, RunID: req.RunID, Hold: hold}, p)
}
