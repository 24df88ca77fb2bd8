package engine

import (
	"context"
	"encoding/json"
	"github.com/switchboard-go/switchboard/internal/api"
	"strings"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/policy"
)

func (e *Engine) toolAgentsList(ctx context.Context, req Requester, raw json.RawMessage) (ToolOutcome, error) {
	if _, err := parseArgs(ToolAgentsList, raw); err != nil {
		return ToolOutcome{}, err
	}
	return ToolOutcome{Payload: policy.AgentsList(e.cfg, req.agent(e))}, nil
}

// AgentsListR lists the agents req may spawn under.
func (e *Engine) AgentsListR(req Requester) policy.AgentsListResult {
	return policy.AgentsList(e.cfg, req.agent(e))
}

type ChildRow = api.ChildRow

func (e *Engine) toolSubagents(ctx context.Context, req Requester, raw json.RawMessage) (ToolOutcome, error) {
	a, err := parseArgs(ToolSubagents, raw, "action", "target")
	if err != nil {
		return ToolOutcome{}, err
	}
	action, _ := a.enum("action", "list", "cancel")
	target, _ := a.text("target", api.KeyChars)
	if err := a.err(); err != nil {
		return ToolOutcome{}, err
	}
	if action == "" {
		action = "list"
	}
	children, err := e.Children(ctx, req.key(e))
	if err != nil {
		return ToolOutcome{}, err
	}
	if action == "list" {
		return ToolOutcome{Payload: map[string]any{"status": "ok", "count": len(children), "subagents": children}}, nil
	}
	target = strings.TrimSpace(target)
	if target == "" {
		return ToolOutcome{}, domain.Invalid("target required for action \"cancel\" (a runId, a childSessionKey or \"all\")")
	}
	var cancelled []string
	for _, c := range children {
		if target != "all" && target != c.RunID && target != c.ChildSessionKey {
			continue
		}
		if domain.RunTerminal(c.Status) {
			if target != "all" {
				return ToolOutcome{Payload: map[string]any{"status": "ok", "cancelled": []string{}, "note": "already ended: " + c.Status}}, nil
			}
			continue
		}
		if _, err := e.rt.Cancel(ctx, c.RunID); err != nil {
			return ToolOutcome{}, err
		}
		cancelled = append(cancelled, c.RunID)
	}
	if cancelled == nil {
		if target != "all" {
			return ToolOutcome{}, domain.Errorf(domain.CodeNotFound, "no sub-agent of this session matches %q", target)
		}
		cancelled = []string{}
	}
	return ToolOutcome{Payload: map[string]any{"status": "ok", "cancelled": cancelled}}, nil
}

// Children lists the sub-agent runs a session spawned, newest first.
func (e *Engine) Children(ctx context.Context, requesterKey string) ([]ChildRow, error) {
	rows, err := e.store.ListSessions(ctx, domain.SessionQuery{SpawnedBy: requesterKey, IncludeArchived: true, Limit: 500})
	if err != nil {
		return nil, err
	}
	out := []ChildRow{}
	for _, s := range rows {
		runs, err := e.store.ListRuns(ctx, domain.RunQuery{SessionKey: s.Key, Kinds: []string{domain.RunKindSubagent}, Limit: 1})
		if err != nil {
			return nil, err
		}
		if len(runs) == 0 {
			continue
		}
		r := runs[0]
		c := ChildRow{RunID: r.ID, ChildSessionKey: s.Key, Label: s.Label, Status: r.Status, StartedAt: r.StartedAt,
			EndedAt: r.EndedAt, TotalTokens: s.TotalTokens, Error: r.Error}
		if r.EndedAt > 0 && r.StartedAt > 0 {
			c.RuntimeMs = r.EndedAt - r.StartedAt
		}
		out = append(out, c)
	}
	return out, nil
}

type WaitResult = api.WaitResult

func (e *Engine) toolRunsWait(ctx context.Context, req Requester, raw json.RawMessage) (ToolOutcome, error) {
	a, err := parseArgs(ToolRunsWait, raw, "runId", "timeoutSeconds")
	if err != nil {
		return ToolOutcome{}, err
	}
	id := a.required("runId", 128)
	timeout := api.WaitTimeout.Default
	if n, ok := a.limited("timeoutSeconds", api.WaitTimeout); ok {
		timeout = n
	}
	if err := a.err(); err != nil {
		return ToolOutcome{}, err
	}
	id = strings.TrimSpace(id)
	// A requester may wait only for runs of sessions it can see.
	if !req.Operator {
		run, err := e.GetRunR(ctx, id)
		if err != nil {
			return ToolOutcome{}, err
		}
		if err := e.guardFor(ctx, req).check(ctx, run.SessionKey, policy.ActionHistory); err != nil {
			return ToolOutcome{}, err
		}
	}
	r, err := e.WaitR(ctx, id, time.Duration(timeout)*time.Second)
	if err != nil {
		return ToolOutcome{}, err
	}
	res := WaitResult{RunID: r.ID, Status: r.Status, Reply: r.Reply, Error: r.Error, StartedAt: r.StartedAt, EndedAt: r.EndedAt}
	if !domain.RunTerminal(r.Status) {
		res.WaitTimedOut = true
	}
	return ToolOutcome{Payload: res, IsError: res.Status == domain.RunError}, nil
}
