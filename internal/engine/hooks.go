package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/switchboard-go/switchboard/internal/delivery"
	"github.com/switchboard-go/switchboard/internal/runspec"
	"github.com/switchboard-go/switchboard/internal/sessions"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/attachments"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/policy"
	"github.com/switchboard-go/switchboard/internal/runs"
	"github.com/switchboard-go/switchboard/internal/tools"
)

// hooks adapts the engine to runs.Hooks.
type hooks struct{ e *Engine }

var _ runs.Hooks = hooks{}

// agentTools are the tools a top-level agent session gets.
var agentTools = []string{api.ToolSessionsList, api.ToolSessionsHistory, api.ToolSessionsSend, api.ToolSessionsSpawn, api.ToolAgentsList, api.ToolSubagents,
	api.ToolSessionsYield, api.ToolSessionStatus, api.ToolSessionsSearch}

// toolsFor lists the tools the runs of s may call.
func (e *Engine) toolsFor(s domain.Session) []string {
	names := agentTools
	if s.SpawnedBy != "" || s.SpawnDepth > 0 {
		depth := s.SpawnDepth
		if depth == 0 {
			depth = 1
		}
		names = policy.SubagentTools(e.cfg, agentTools, depth, e.cfg.Agents.Defaults.Subagents.MaxSpawnDepth)
	}
	if a, ok := e.conf().Agent(s.AgentID); ok && a.Tools != nil {
		var kept []string
		for _, n := range names {
			if (len(a.Tools.Allow) == 0 || contains(a.Tools.Allow, n) || contains(a.Tools.Allow, "*")) && !contains(a.Tools.Deny, n) {
				kept = append(kept, n)
			}
		}
		names = kept
	}
	return names
}

func (h hooks) Prepare(ctx context.Context, run domain.Run, sess domain.Session) (runs.Plan, error) {
	e := h.e
	spec, err := runspec.DecodePlan(run)
	if err != nil {
		return runs.Plan{}, err
	}
	if r, ok := e.remoteOf(sess.AgentID); ok {
		return e.remotePlan(r, run, sess, spec.Chain), nil
	}
	var system []string
	if a, ok := e.conf().Agent(sess.AgentID); ok && a.SystemPrompt != "" {
		system = append(system, a.SystemPrompt)
	} else {
		name := sess.AgentID
		if ok && a.Name != "" {
			name = a.Name
		}
		system = append(system, fmt.Sprintf("You are %s, an agent hosted by switchboard.", name))
	}
	system = append(system, "Session: "+sess.Key)
	if spec.System != "" {
		system = append(system, spec.System)
	}
	model := spec.Model
	if model == "" {
		model = e.sessions.ModelFor(sess)
	}
	thinking := spec.Thinking
	if thinking == "" {
		thinking = sess.ThinkingLevel
	}
	return runs.Plan{
		System:   strings.Join(system, "\n\n"),
		ModelRef: model,
		Thinking: thinking,
		Tools:    tools.Specs(e.toolsFor(sess)...),
		ToolContext: domain.ToolCallContext{
			SessionKey: sess.Key, AgentID: sess.AgentID, ParentRunID: run.ParentRunID,
			Sandboxed: e.sandboxed(sess), SpawnDepth: sess.SpawnDepth, Channel: sessions.ChannelOf(sess),
		},
	}, nil
}

func (h hooks) CallTool(ctx context.Context, tc domain.ToolCallContext, name string, args json.RawMessage) domain.ToolResult {
	e := h.e
	s, err := e.store.GetSession(ctx, tc.SessionKey)
	allowed := err == nil && contains(e.toolsFor(s), name)
	var out api.ToolOutcome
	if !allowed {
		out = tools.Failure(domain.Invalid("tool not available: %s", name))
	} else {
		out = tools.Call(ctx, e, agentPrincipal(tc), name, args)
	}
	text := out.JSON()
	res := domain.ToolResult{Content: []domain.Block{domain.TextBlock(string(text))}, Details: text, IsError: out.IsError}
	endTurn(name, out, &res)
	return res
}

func (h hooks) Finished(tx domain.Tx, run domain.Run, next func(domain.Run) (domain.Run, error)) error {
	e := h.e
	if run.Kind == domain.RunKindChat || run.Kind == domain.RunKindAgent ||
		run.Kind == domain.RunKindInbound && bytes.Contains(run.Spec, delivery.SpecKey) {
		// A chat turn, or the requester's turn on a sub-agent's announce
		// (requesterDelivery), delivers its reply when it asks to.
		return e.chatDelivered(tx, run)
	}
	if !runspec.FollowsUp(run.Kind) {
		// No follow-up work: the spec is not decoded here, on the store's
		// writer goroutine (a chat turn's end).
		return nil
	}
	spec, err := runspec.Decode(run)
	if err != nil {
		// The run has ended (Prepare refused this spec when it started);
		// its follow-up work cannot be known, so none starts.
		e.log.Error("run follow-up skipped", "run", run.ID, "err", err)
		return nil
	}
	switch run.Kind {
	case domain.RunKindSend, domain.RunKindReply, domain.RunKindAnnounce:
		if spec.A2A != nil {
			return e.sender.FollowUp(tx, run, spec, next)
		}
	case domain.RunKindSubagent:
		return e.spawner.Finished(tx, run, spec)
	}
	return nil
}

func (h hooks) AfterFinish(run domain.Run) {
	if run.Kind == domain.RunKindAnnounce || run.Kind == domain.RunKindSubagent || bytes.Contains(run.Spec, delivery.SpecKey) {
		h.e.poke()
	}
}

func (h hooks) PersistToolCall(name string, args json.RawMessage) json.RawMessage {
	if name == api.ToolSessionsSpawn {
		return attachments.RedactArguments(args)
	}
	return args
}
