package gateway

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/engine"
)

type sendParams struct {
	To             string `json:"to"`
	Message        string `json:"message"`
	Channel        string `json:"channel"`
	SessionKey     string `json:"sessionKey"`
	IdempotencyKey string `json:"idempotencyKey"`
}

// mSend queues a direct outbound message (at least once, deduplicated by
// idempotencyKey within the caller's scope). It answers the outbox
// message's id, never the idempotency key.
func (s *Server) mSend(ctx context.Context, cl *call) (any, error) {
	var p sendParams
	if err := decodeParams(cl.method, cl.params, &p); err != nil {
		return nil, err
	}
	if err := requireString(cl.method, "message", p.Message); err != nil {
		return nil, err
	}
	pr := cl.principal("")
	item, err := s.eng.Deliver(ctx, engine.DeliverRequest{SessionKey: p.SessionKey, Channel: p.Channel, To: p.To,
		Message: p.Message, IdempotencyKey: api.IdempotencyScope(pr, "", api.OpDeliver, p.IdempotencyKey)})
	if err != nil {
		return nil, err
	}
	return map[string]any{"messageId": strconv.FormatInt(item.ID, 10),
		"channel": item.Channel, "status": "queued", "sessionKey": item.SessionKey}, nil
}

// agentsListRow is one agent of agents.list.
type agentsListRow struct {
	ID    string `json:"id"`
	Name  string `json:"name,omitempty"`
	Model string `json:"model"`
}

// mAgentsList lists the configured agents in OpenClaw's shape (the
// configuration as it is, shown to a caller holding read).
func (s *Server) mAgentsList(ctx context.Context, cl *call) (any, error) {
	var agents []agentsListRow
	for _, id := range s.cfg.AgentIDs() {
		a, _ := s.cfg.Agent(id)
		agents = append(agents, agentsListRow{ID: id, Name: a.Name, Model: s.cfg.AgentModel(id)})
	}
	scope := s.cfg.Session.Scope
	if scope == "" {
		scope = "per-sender"
	}
	return map[string]any{"defaultId": s.cfg.DefaultAgentID(), "mainKey": s.cfg.MainKey(), "scope": scope, "agents": agents}, nil
}

type runIDParams struct {
	RunID string `json:"runId"`
}

func (s *Server) mRunsGet(ctx context.Context, cl *call) (any, error) {
	var p runIDParams
	if err := decodeParams(cl.method, cl.params, &p); err != nil {
		return nil, err
	}
	if err := requireString(cl.method, "runId", p.RunID); err != nil {
		return nil, err
	}
	return s.eng.GetRun(ctx, cl.principal(""), strings.TrimSpace(p.RunID))
}

// mRunsCancel cancels a run and answers api.CancelResult: the run with
// its final status and whether this call cancelled it.
func (s *Server) mRunsCancel(ctx context.Context, cl *call) (any, error) {
	var p runIDParams
	if err := decodeParams(cl.method, cl.params, &p); err != nil {
		return nil, err
	}
	if err := requireString(cl.method, "runId", p.RunID); err != nil {
		return nil, err
	}
	return s.eng.CancelRun(ctx, cl.principal(""), strings.TrimSpace(p.RunID))
}

type toolsInvokeParams struct {
	Tool       string          `json:"tool"`
	Args       json.RawMessage `json:"args"`
	SessionKey string          `json:"sessionKey"`
}

// mToolsInvoke calls a session tool as the requester session sessionKey
// (default: the default agent's main session, or the bound session).
// Each tool needs the scope of what it does; refusals are error results.
func (s *Server) mToolsInvoke(ctx context.Context, cl *call) (any, error) {
	var p toolsInvokeParams
	if err := decodeParams(cl.method, cl.params, &p); err != nil {
		return nil, err
	}
	if err := requireString(cl.method, "tool", p.Tool); err != nil {
		return nil, err
	}
	out := s.eng.CallTool(ctx, cl.c.grant.toolPrincipal(p.SessionKey), p.Tool, p.Args)
	return map[string]any{"ok": !out.IsError, "result": out.Payload}, nil
}
