package engine

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/policy"
	"github.com/switchboard-go/switchboard/internal/tools"
	"github.com/switchboard-go/switchboard/internal/tracing"
)

var _ api.Service = (*Engine)(nil)

// cancelSettle bounds how long a cancel waits for the run it cancelled to
// record its end, so the answer says what happened.
const cancelSettle = 10 * time.Second

// enter is the gate every Service call passes first: the principal's scope
// for op, its binding, and the requester it acts as (a malformed key or
// an unknown agent is refused here, the same way on every surface).
func (e *Engine) enter(p api.Principal, op api.Op) (Requester, error) {
	if err := api.Authorize(p, op); err != nil {
		return Requester{}, err
	}
	req := Requester{RunID: p.RunID, ToolCallID: p.ToolCallID, caller: p.Name + "\x00" + p.Session}
	key := p.Requester()
	if key == "" {
		req.Operator = true
		return req, nil
	}
	canon, err := e.requesterKey(key)
	if err != nil {
		return Requester{}, err
	}
	if p.Session != "" && p.As != "" {
		as, err := e.requesterKey(p.As)
		if err != nil {
			return Requester{}, err
		}
		if as != canon {
			return Requester{}, domain.Errorf(domain.CodeForbidden, "this credential acts as session %s; requester %s is not allowed", canon, as)
		}
	}
	req.SessionKey, req.resolved = canon, canon
	return req, nil
}

// requesterKey canonicalizes a requester session key: a bare word is a key
// of the default agent, and the agent must be configured.
func (e *Engine) requesterKey(key string) (string, error) {
	canon, err := e.keys.Canonical(strings.TrimSpace(key), e.cfg.DefaultAgentID())
	if err != nil {
		return "", domain.Invalid("requester session %q: %v", key, err)
	}
	if id := e.keys.AgentOf(canon); !e.sessions.AgentConfigured(id) {
		return "", domain.Invalid("requester session %q: %s", key, domain.ErrorMessage(e.sessions.UnknownAgent(id, canon)))
	}
	return canon, nil
}

// target checks that a requester may act on the session key (operators
// may act on any).
func (e *Engine) target(ctx context.Context, req Requester, key string, action policy.Action) error {
	if req.Operator {
		return nil
	}
	return e.guardFor(ctx, req).Check(ctx, key, action)
}

// ListSessions lists the sessions the principal may see, newest first.
func (e *Engine) ListSessions(ctx context.Context, p api.Principal, r api.ListRequest) (_ api.ListResult, err error) {
	defer e.audited(ctx, p, api.OpSessionsList, "", &err)
	req, err := e.enter(p, api.OpSessionsList)
	if err != nil {
		return api.ListResult{}, err
	}
	return e.listSessions(ctx, req, r)
}

// History returns the newest messages of a session the principal may see.
func (e *Engine) History(ctx context.Context, p api.Principal, r api.HistoryRequest) (_ api.HistoryResult, err error) {
	defer e.audited(ctx, p, api.OpSessionsHistory, r.SessionKey, &err)
	req, err := e.enter(p, api.OpSessionsHistory)
	if err != nil {
		return api.HistoryResult{}, err
	}
	if !req.Operator {
		r.Raw = false
	}
	return e.history(ctx, req, r)
}

// Send is sessions_send as the principal.
func (e *Engine) Send(ctx context.Context, p api.Principal, r api.SendRequest) (res api.SendResult, err error) {
	defer func() { e.auditSend(ctx, p, r, res, err) }()
	req, err := e.enter(p, api.OpSessionsSend)
	if err != nil {
		return api.SendResult{}, err
	}
	if err := api.CheckIdempotencyKey(r.IdempotencyKey); err != nil {
		return api.SendResult{}, err
	}
	return e.send(ctx, req, r)
}

// Spawn is sessions_spawn as the principal.
func (e *Engine) Spawn(ctx context.Context, p api.Principal, r api.SpawnRequest) (_ api.SpawnResult, err error) {
	defer e.audited(ctx, p, api.OpSessionsSpawn, r.AgentID, &err)
	req, err := e.enter(p, api.OpSessionsSpawn)
	if err != nil {
		return api.SpawnResult{}, err
	}
	if err := api.CheckIdempotencyKey(r.IdempotencyKey); err != nil {
		return api.SpawnResult{}, err
	}
	return e.spawn(ctx, req, r)
}

// AgentsList lists the agents the principal's requester may spawn under.
func (e *Engine) AgentsList(ctx context.Context, p api.Principal) (_ api.AgentsListResult, err error) {
	defer e.audited(ctx, p, api.OpAgentsList, "", &err)
	req, err := e.enter(p, api.OpAgentsList)
	if err != nil {
		return api.AgentsListResult{}, err
	}
	res := e.agentsList(req)
	res.Remotes = e.remotesList(ctx, req)
	return res, nil
}

// CallTool calls a tool by name as the principal. Refusals, unknown tools
// and bad arguments are error outcomes.
func (e *Engine) CallTool(ctx context.Context, p api.Principal, name string, args json.RawMessage) api.ToolOutcome {
	return tools.Call(ctx, e, p, name, args)
}

// agentPrincipal is who an agent of this engine is when it calls a tool
// inside a run: its own session, with every scope, and the run that
// enables the reply-back loop and loop safety.
func agentPrincipal(tc domain.ToolCallContext) api.Principal {
	return api.Principal{Name: "agent", Scopes: api.AllScopes, Session: tc.SessionKey, RunID: tc.RunID, ToolCallID: tc.ToolCallID}
}

// Chat is a user message arriving on a channel. Commands with admin
// effects need the admin scope; a requester may chat only into sessions
// it may see.
func (e *Engine) Chat(ctx context.Context, p api.Principal, r api.ChatRequest) (_ api.ChatResult, err error) {
	op := api.OpChat
	defer func() { e.audited(ctx, p, op, r.SessionKey, &err) }()
	if isAdminCommand(r.Message) {
		op = api.OpCommand
	}
	req, err := e.enter(p, op)
	if err != nil {
		return api.ChatResult{}, err
	}
	if err := api.CheckIdempotencyKey(r.IdempotencyKey); err != nil {
		return api.ChatResult{}, err
	}
	if !req.Operator {
		key, err := e.resolveRef(ctx, req, orDefault(r.SessionKey, "main"))
		if err != nil {
			return api.ChatResult{}, err
		}
		if err := e.chatTarget(ctx, req, key, r.Parent); err != nil {
			return api.ChatResult{}, err
		}
		if err := e.ownRecipient(ctx, key, r); err != nil {
			return api.ChatResult{}, err
		}
		r.SessionKey = key
	} else {
		r.Parent = "" // the operator has no session of its own
	}
	r.IdempotencyKey = req.scopeKey(api.OpChat, r.IdempotencyKey)
	if l := strings.TrimSpace(r.Label); l != "" {
		if _, err := e.sessions.Patch(ctx, orDefault(r.SessionKey, "main"), api.PatchRequest{Label: api.SetValue(l)}); err != nil {
			return api.ChatResult{}, err
		}
	}
	return e.chat(ctx, r)
}

// isAdminCommand reports whether a chat message is a session command with
// admin effects (/new, /reset, /send), as OpenClaw decides.
func isAdminCommand(msg string) bool {
	fields := strings.Fields(strings.ToLower(msg))
	if len(fields) == 0 {
		return false
	}
	switch fields[0] {
	case "/new", "/reset", "/send":
		return true
	}
	return false
}

// runFor returns a run the principal may see.
func (e *Engine) runFor(ctx context.Context, req Requester, runID string) (domain.Run, error) {
	run, err := e.getRun(ctx, strings.TrimSpace(runID))
	if err != nil {
		return domain.Run{}, err
	}
	if !req.Operator {
		if err := e.target(ctx, req, run.SessionKey, policy.ActionHistory); err != nil {
			// A run of a session the requester cannot see does not exist for it.
			return domain.Run{}, domain.Errorf(domain.CodeNotFound, "run not found: %s", runID)
		}
	}
	return run, nil
}

// GetRun returns a run of a session the principal may see.
func (e *Engine) GetRun(ctx context.Context, p api.Principal, runID string) (_ domain.Run, err error) {
	defer e.audited(ctx, p, api.OpRunsGet, runID, &err)
	req, err := e.enter(p, api.OpRunsGet)
	if err != nil {
		return domain.Run{}, err
	}
	return e.runFor(ctx, req, runID)
}

// WaitRun waits for a run to end, up to the request's timeout.
func (e *Engine) WaitRun(ctx context.Context, p api.Principal, r api.WaitRequest) (_ domain.Run, err error) {
	defer e.audited(ctx, p, api.OpRunsWait, r.RunID, &err)
	req, err := e.enter(p, api.OpRunsWait)
	if err != nil {
		return domain.Run{}, err
	}
	// An operator sees every run: the wait's own read of the run answers
	// "not found" the same way, one store read fewer per wait (an agent
	// round trip over the gateway waits twice).
	if !req.Operator {
		if _, err := e.runFor(ctx, req, r.RunID); err != nil {
			return domain.Run{}, err
		}
	}
	return e.waitRun(ctx, strings.TrimSpace(r.RunID), r.Timeout)
}

// CancelRun cancels a run and everything it started, and says what
// happened: cancelled, or already ended with its status.
func (e *Engine) CancelRun(ctx context.Context, p api.Principal, runID string) (_ api.CancelResult, err error) {
	defer e.audited(ctx, p, api.OpRunsCancel, runID, &err)
	req, err := e.enter(p, api.OpRunsCancel)
	if err != nil {
		return api.CancelResult{}, err
	}
	before, err := e.runFor(ctx, req, runID)
	if err != nil {
		return api.CancelResult{}, err
	}
	if domain.RunTerminal(before.Status) {
		return api.CancelResult{Run: before, AlreadyEnded: true}, nil
	}
	if _, err := e.cancelRun(ctx, before.ID); err != nil {
		return api.CancelResult{}, err
	}
	after, err := e.waitRun(ctx, before.ID, cancelSettle)
	if err != nil {
		return api.CancelResult{}, err
	}
	return api.CancelResult{Run: after, Cancelled: after.Status == domain.RunCancelled}, nil
}

// ListRuns lists runs, newest first; a requester sees only runs of
// sessions it may see.
func (e *Engine) ListRuns(ctx context.Context, p api.Principal, q api.RunsRequest) (_ []domain.Run, err error) {
	defer e.audited(ctx, p, api.OpRunsList, q.SessionKey, &err)
	req, err := e.enter(p, api.OpRunsList)
	if err != nil {
		return nil, err
	}
	if q.SessionKey != "" {
		// An operator's reference resolves as the operator's, whatever
		// session it speaks from.
		by := req
		if req.Operator {
			by = Requester{Operator: true}
		}
		if q.SessionKey, err = e.resolveRef(ctx, by, q.SessionKey); err != nil {
			return nil, err
		}
	}
	runs, err := e.reads.Runs(ctx, e.guardFor(ctx, req), q)
	for i := range runs {
		runs[i] = e.withTrace(runs[i])
	}
	return runs, err
}

// sessionTarget resolves a session reference for an admin operation and
// checks the requester may act on it.
func (e *Engine) sessionTarget(ctx context.Context, p api.Principal, op api.Op, ref string) (string, error) {
	req, err := e.enter(p, op)
	if err != nil {
		return "", err
	}
	key, err := e.resolveRef(ctx, req, ref)
	if err != nil {
		return "", err
	}
	if err := e.target(ctx, req, key, policy.ActionStatus); err != nil {
		return "", err
	}
	return key, nil
}

// Patch changes a session's settings.
func (e *Engine) Patch(ctx context.Context, p api.Principal, r api.PatchRequest) (_ domain.Session, err error) {
	defer e.audited(ctx, p, api.OpSessionsPatch, r.Key, &err)
	key, err := e.sessionTarget(ctx, p, api.OpSessionsPatch, r.Key)
	if err != nil {
		return domain.Session{}, err
	}
	return e.sessions.Patch(ctx, key, r)
}

// Reset starts a new transcript generation for a session.
func (e *Engine) Reset(ctx context.Context, p api.Principal, r api.ResetRequest) (_ domain.Session, err error) {
	defer e.audited(ctx, p, api.OpSessionsReset, r.Key, &err)
	key, err := e.sessionTarget(ctx, p, api.OpSessionsReset, r.Key)
	if err != nil {
		return domain.Session{}, err
	}
	return e.sessions.Reset(ctx, key)
}

// Delete removes a session.
func (e *Engine) Delete(ctx context.Context, p api.Principal, r api.DeleteRequest) (_ api.DeleteResult, err error) {
	defer e.audited(ctx, p, api.OpSessionsDel, r.Key, &err)
	key, err := e.sessionTarget(ctx, p, api.OpSessionsDel, r.Key)
	if err != nil {
		return api.DeleteResult{}, err
	}
	if err := e.sessions.Remove(ctx, key); err != nil {
		return api.DeleteResult{}, err
	}
	return api.DeleteResult{Key: key, Deleted: true}, nil
}

// Outbox lists outbox rows (operator only).
func (e *Engine) Outbox(ctx context.Context, p api.Principal, q api.OutboxRequest) (_ []domain.OutboxItem, err error) {
	defer e.audited(ctx, p, api.OpOutboxList, "", &err)
	if _, err := e.enter(p, api.OpOutboxList); err != nil {
		return nil, err
	}
	return e.store.ListOutbox(ctx, q)
}

// Visible reports whether the principal may see the session key: the one
// rule that also filters the events a non-operator receives.
func (e *Engine) Visible(ctx context.Context, p api.Principal, key string) bool {
	req, err := e.enter(p, api.OpSessionsHistory)
	if err != nil {
		return false
	}
	return e.target(ctx, req, key, policy.ActionHistory) == nil
}

// scopeKey scopes a caller's idempotency key to (principal, requester,
// operation).
func (r Requester) scopeKey(op api.Op, key string) string {
	if key == "" || r.scoped {
		return key
	}
	return api.IdempotencyScope(api.Principal{Name: r.caller}, r.resolved, op, key)
}

// Subagents lists the requester's sub-agents, or cancels one ("all" for
// every running one) and everything it started.
func (e *Engine) Subagents(ctx context.Context, p api.Principal, r api.SubagentsRequest) (_ api.SubagentsResult, err error) {
	op := api.OpSubagentsList
	defer func() { e.audited(ctx, p, op, r.Target, &err) }()
	if r.Action == "cancel" {
		op = api.OpSubagentsCancel
	}
	req, err := e.enter(p, op)
	if err != nil {
		return api.SubagentsResult{}, err
	}
	children, err := e.Children(ctx, req.key(e))
	if err != nil {
		return api.SubagentsResult{}, err
	}
	if r.Action != "cancel" {
		return api.SubagentsResult{Status: "ok", Action: "list", Subagents: children}, nil
	}
	res := api.SubagentsResult{Status: "ok", Action: "cancel", Cancelled: []string{}}
	target := strings.TrimSpace(r.Target)
	if target == "" {
		return api.SubagentsResult{}, domain.Invalid("target required for action \"cancel\" (a runId, a childSessionKey or \"all\")")
	}
	matched := false
	for _, c := range children {
		if target != "all" && target != c.RunID && target != c.ChildSessionKey {
			continue
		}
		matched = true
		if domain.RunTerminal(c.Status) {
			if target != "all" {
				res.Note = "already ended: " + string(c.Status)
			}
			continue
		}
		if _, err := e.rt.Cancel(ctx, c.RunID); err != nil {
			return api.SubagentsResult{}, err
		}
		res.Cancelled = append(res.Cancelled, c.RunID)
	}
	if !matched && target != "all" {
		return api.SubagentsResult{}, domain.Errorf(domain.CodeNotFound, "no sub-agent of this session matches %q", target)
	}
	return res, nil
}

// waitRun waits for a run to end, up to timeout.
func (e *Engine) waitRun(ctx context.Context, runID string, timeout time.Duration) (domain.Run, error) {
	r, err := e.rt.Wait(ctx, runID, timeout)
	if errors.Is(err, domain.ErrNotFound) {
		return r, domain.Errorf(domain.CodeNotFound, "run not found: %s", runID)
	}
	return e.withTrace(r), err
}

// getRun returns a run by id.
func (e *Engine) getRun(ctx context.Context, runID string) (domain.Run, error) {
	r, err := e.store.GetRun(ctx, runID)
	if errors.Is(err, domain.ErrNotFound) {
		return r, domain.Errorf(domain.CodeNotFound, "run not found: %s", runID)
	}
	return e.withTrace(r), err
}

// cancelRun cancels a run and every run it started.
func (e *Engine) cancelRun(ctx context.Context, runID string) (domain.Run, error) {
	r, err := e.rt.Cancel(ctx, runID)
	if errors.Is(err, domain.ErrNotFound) {
		return r, domain.Errorf(domain.CodeNotFound, "run not found: %s", runID)
	}
	return r, err
}

// StopSession cancels the session's queued and running runs.
func (e *Engine) StopSession(ctx context.Context, key string) (int, error) {
	runs, err := e.store.ListRuns(ctx, domain.RunQuery{SessionKey: key, Statuses: []domain.RunStatus{domain.RunQueued, domain.RunRunning}})
	if err != nil {
		return 0, err
	}
	for _, r := range runs {
		if _, err := e.rt.Cancel(ctx, r.ID); err != nil {
			return 0, err
		}
	}
	return len(runs), nil
}

// withTrace fills r's trace id, and its viewer link, from its spec.
func (e *Engine) withTrace(r domain.Run) domain.Run {
	if r.TraceID = tracing.TraceIDOfSpec(r.Spec); r.TraceID != "" {
		r.TraceURL = e.cfg.Tracing.TraceLink(r.TraceID)
	}
	return r
}
