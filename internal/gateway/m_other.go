package gateway

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/attachments"
)

type sendParams struct {
	To             string             `json:"to"`
	Message        string             `json:"message"`
	Attachments    []attachments.Spec `json:"attachments"`
	Channel        string             `json:"channel"`
	SessionKey     string             `json:"sessionKey"`
	IdempotencyKey string             `json:"idempotencyKey"`
}

// mSend queues a direct outbound message (at least once, deduplicated by
// idempotencyKey within the caller's scope). It answers the outbox
// message's id, never the idempotency key.
func (s *Server) mSend(ctx context.Context, cl *call) (any, error) {
	var p sendParams
	if err := decodeParams(cl.method, cl.params, &p); err != nil {
		return nil, err
	}
	if len(p.Attachments) == 0 {
		if err := requireString(cl.method, "message", p.Message); err != nil {
			return nil, err
		}
	}
	return s.eng.Deliver(ctx, cl.principal(""), api.DeliverRequest{SessionKey: p.SessionKey, Channel: p.Channel, To: p.To,
		Message: p.Message, Attachments: p.Attachments, IdempotencyKey: p.IdempotencyKey})
}

// agentsListRow is one agent of agents.list.
type agentsListRow struct {
	ID    string          `json:"id"`
	Name  string          `json:"name,omitempty"`
	Model agentsListModel `json:"model"`
}

// agentsListModel is OpenClaw's model of an agent: its primary model.
type agentsListModel struct {
	Primary string `json:"primary,omitempty"`
}

// mAgentsList lists agents in OpenClaw's shape: the configured agents the
// caller's requester (the operator: the default agent) may work with, as
// api.Service.AgentsList answers, under the session defaults, and the
// remote A2A agents in "remotes".
func (s *Server) mAgentsList(ctx context.Context, cl *call) (any, error) {
	pr := cl.principal("")
	d, err := s.eng.Defaults(ctx, pr)
	if err != nil {
		return nil, err
	}
	list, err := s.eng.AgentsList(ctx, pr)
	if err != nil {
		return nil, err
	}
	agents := []agentsListRow{}
	for _, a := range list.Agents {
		if a.Configured {
			agents = append(agents, agentsListRow{ID: a.ID, Name: a.Name, Model: agentsListModel{Primary: a.Model}})
		}
	}
	// OpenClaw's result is closed: the remote A2A agents (a2a.remotes) are
	// in the agents_list tool's answer and GET /api/agents, not here.
	return map[string]any{"defaultId": d.DefaultAgentID, "mainKey": d.MainKey, "scope": d.Scope, "agents": agents}, nil
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
	asked := strings.TrimSpace(p.RunID)
	r, err := s.eng.GetRun(ctx, cl.principal(""), s.aliases.run(asked))
	if err != nil {
		return nil, err
	}
	r.ID = asked // a chat.send run asked for by its idempotencyKey keeps that name
	return r, nil
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
	asked := strings.TrimSpace(p.RunID)
	res, err := s.eng.CancelRun(ctx, cl.principal(""), s.aliases.run(asked))
	if err != nil {
		return nil, err
	}
	res.ID = asked
	return res, nil
}

type toolsInvokeParams struct {
	Tool       string          `json:"name"` // OpenClaw's name of the field
	Args       json.RawMessage `json:"args"`
	SessionKey string          `json:"sessionKey"`
}

// mToolsInvoke is tools.invoke {name, args, sessionKey?}: it calls a session tool as the requester session sessionKey
// (default: the default agent's main session, or the bound session).
// Each tool needs the scope of what it does; refusals are error results.
func (s *Server) mToolsInvoke(ctx context.Context, cl *call) (any, error) {
	var p toolsInvokeParams
	if err := decodeParams(cl.method, cl.params, &p); err != nil {
		return nil, err
	}
	if err := requireString(cl.method, "name", p.Tool); err != nil {
		return nil, err
	}
	out := s.eng.CallTool(ctx, cl.c.grant.toolPrincipal(p.SessionKey), p.Tool, p.Args)
	return map[string]any{"ok": !out.IsError, "result": out.Payload}, nil
}
