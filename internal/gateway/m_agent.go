package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/sessionkey"
)

type agentParams struct {
	Message    string `json:"message"`
	AgentID    string `json:"agentId"`
	SessionKey string `json:"sessionKey"`
	// SessionID picks the session by its current sessionId when no
	// sessionKey is given (OpenClaw's `agent --session-id`).
	SessionID string `json:"sessionId"`
	// IdempotencyKey is optional, but not empty (idempotencyKey()).
	IdempotencyKey *string `json:"idempotencyKey"`
	Thinking       string  `json:"thinking"`
	Model          string  `json:"model"`
	Channel        string  `json:"channel"`
	// To, AccountID and ThreadID are delivery hints, recorded on the
	// session (deliveryContext, lastTo, lastAccountId).
	To        string          `json:"to"`
	AccountID string          `json:"accountId"`
	ThreadID  json.RawMessage `json:"threadId"`
	// Deliver sends the reply to the session's channel when the run ends
	// (replyChannel/replyTo override the target); bestEffortDeliver runs
	// without delivery when no channel resolves (api.ChatRequest.Deliver).
	Deliver           bool     `json:"deliver"`
	BestEffortDeliver bool     `json:"bestEffortDeliver"`
	ReplyChannel      string   `json:"replyChannel"`
	ReplyTo           string   `json:"replyTo"`
	Timeout           *api.Int `json:"timeout"` // seconds
	ExtraSystemPrompt string   `json:"extraSystemPrompt"`
	Label             string   `json:"label"`
	// Attachments are OpenClaw's inline files, as chat.send's (chatFiles).
	Attachments json.RawMessage `json:"attachments"`
}

// mAgent starts a run and answers twice with the same id: `accepted` at
// once, then the outcome when the run ends (OpenClaw's expectFinal).
func (s *Server) mAgent(ctx context.Context, cl *call) (any, error) {
	var p agentParams
	if err := decodeParams(cl.method, cl.params, &p); err != nil {
		return nil, err
	}
	files, err := s.chatFiles(cl.method, p.Attachments)
	if err != nil {
		return nil, err
	}
	if err := requireMessage(cl.method, p.Message, files); err != nil {
		return nil, err
	}
	idem, err := idempotencyKey(cl.method, p.IdempotencyKey)
	if err != nil {
		return nil, err
	}
	timeout, err := chatTimeout(cl.method, "timeout", p.Timeout.Int64(), 1000)
	if err != nil {
		return nil, err
	}
	pr := cl.principal("")
	if strings.TrimSpace(p.SessionKey) == "" && strings.TrimSpace(p.SessionID) != "" {
		r, err := s.eng.Resolve(ctx, pr, api.ResolveRequest{SessionID: strings.TrimSpace(p.SessionID)})
		if err != nil {
			return nil, err
		}
		p.SessionKey = r.Key
	}
	key, err := s.agentTarget(ctx, cl.method, pr, p.AgentID, p.SessionKey)
	if err != nil {
		return nil, err
	}
	thread, err := threadID(cl.method, "threadId", p.ThreadID)
	if err != nil {
		return nil, err
	}
	res, err := s.eng.Chat(ctx, pr, api.ChatRequest{SessionKey: key, Message: p.Message, Attachments: files, Channel: p.Channel,
		To: p.To, AccountID: p.AccountID, ThreadID: thread,
		Deliver: p.Deliver, BestEffortDeliver: p.BestEffortDeliver, ReplyChannel: p.ReplyChannel, ReplyTo: p.ReplyTo,
		IdempotencyKey: idem, Model: p.Model, Thinking: p.Thinking, TimeoutSeconds: timeout,
		Kind: domain.RunKindAgent, ExtraSystem: p.ExtraSystemPrompt, Label: strings.TrimSpace(p.Label)})
	if errors.Is(err, api.ErrRunRequest) {
		// OpenClaw's run-request validation: `invalid agent params: unknown
		// channel: <c>`, `… unknown agent id "<x>"` (OpenClaw's gateway methods).
		return nil, invalidParams(cl.method, "%s", domain.ErrorMessage(err))
	}
	if err != nil {
		return nil, err
	}
	if res.Command != "" {
		return map[string]any{"runId": "", "status": "ok", "summary": "completed",
			"result": map[string]any{"payloads": []map[string]any{{"text": res.Reply}}, "meta": map[string]any{"command": res.Command}}}, nil
	}
	// The connection gets the events of the run it started (docs/design.md#events-and-subscriptions).
	if !domain.RunTerminal(res.Run.Status) {
		s.fan.claimRun(cl.c.sub, res.Run.ID)
	}
	if err := cl.ack(acceptedPayload{RunID: res.Run.ID, Status: "accepted", AcceptedAt: s.now().UnixMilli()}); err != nil {
		return nil, err
	}
	run, err := s.waitEnd(ctx, pr, res.Run.ID)
	if err != nil {
		return nil, err
	}
	cl.c.ended.add(run)
	return s.agentFinal(ctx, pr, run)
}

// agentTarget picks the session of an `agent` call from agentId and
// sessionKey, with OpenClaw's validation messages. An unknown agent or a
// malformed key is the engine's to refuse; the main key and the agent of a
// key that names none come from api.Service.Defaults.
func (s *Server) agentTarget(ctx context.Context, method string, pr api.Principal, agentID, sessionKey string) (string, error) {
	agent := ""
	if a := strings.TrimSpace(agentID); a != "" {
		agent = sessionkey.NormalizeAgentID(a)
	}
	if strings.TrimSpace(sessionKey) == "" && agent == "" {
		if pr.IsOperator() {
			return "main", nil
		}
		return pr.Requester(), nil
	}
	if k := strings.TrimSpace(sessionKey); len(k) >= len("agent:") && strings.EqualFold(k[:len("agent:")], "agent:") {
		if _, err := sessionkey.Parse(k); err != nil {
			return "", invalidParams(method, "malformed session key %q", k)
		}
	}
	if agent == "" {
		return sessionKey, nil
	}
	d, err := s.eng.Defaults(ctx, pr)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(sessionKey) == "" {
		return sessionkey.Key{AgentID: agent, Rest: d.MainKey}.String(), nil
	}
	// A key without an agent belongs to the requester's agent.
	keyAgent := ""
	if k, err := sessionkey.Parse(strings.TrimSpace(sessionKey)); err == nil {
		keyAgent = k.AgentID
	} else if m, err := sessionkey.Parse(d.MainSessionKey); err == nil && !strings.HasPrefix(strings.ToLower(strings.TrimSpace(sessionKey)), "agent:") {
		keyAgent = m.AgentID
	}
	if keyAgent != "" && keyAgent != agent {
		return "", invalidParams(method, "agent %q does not match session key agent %q", agent, keyAgent)
	}
	return sessionKey, nil
}

// waitEnd waits for a run to end, for as long as the connection lives.
func (s *Server) waitEnd(ctx context.Context, pr api.Principal, runID string) (domain.Run, error) {
	for {
		r, err := s.eng.WaitRun(ctx, pr, api.WaitRequest{RunID: runID, Timeout: time.Duration(api.WaitTimeout.Max) * time.Second})
		if err != nil {
			return r, err
		}
		if domain.RunTerminal(r.Status) {
			return r, nil
		}
	}
}

// sessionModel is the model row of r's session after r, for an operator
// (ok false otherwise, or when the runtime's row did not come).
func (s *Server) sessionModel(ctx context.Context, pr api.Principal, r domain.Run) (modelRow, bool) {
	if !pr.IsOperator() {
		return modelRow{}, false
	}
	return s.models.await(ctx, r)
}

// agentFinal is the final `res` of an `agent` call.
func (s *Server) agentFinal(ctx context.Context, pr api.Principal, r domain.Run) (any, error) {
	if r.Status != domain.RunOK {
		status, code := "error", CodeUnavailable
		if r.Status == domain.RunTimeout {
			status, code = "timeout", CodeAgentTimeout
		}
		msg := r.Error
		if msg == "" {
			msg = "agent run " + string(r.Status)
		}
		return nil, &payloadError{code: code, message: msg, payload: map[string]any{"runId": r.ID, "status": status, "summary": msg, "runStatus": r.Status}}
	}
	meta := agentMeta{SessionID: r.SessionID, Usage: r.Usage}
	setModel := func(model, provider string) {
		if provider == "" {
			provider = providerOf(model)
		}
		meta.Model, meta.Provider = &model, &provider
	}
	// An operator may see every session: the row the run's end wrote,
	// as the runtime published it, names the model (sessionmodels.go).
	if row, ok := s.sessionModel(ctx, pr, r); ok {
		setModel(row.model, row.provider)
	} else if sess, err := observe(s.metrics, "get_session", func() (api.SessionRow, error) {
		// The caller just ran in this session, so it may see its row.
		return s.eng.GetSession(ctx, pr, r.SessionKey)
	}); err == nil {
		setModel(sess.Model, sess.ModelProvider)
	}
	var durationMs int64
	if r.StartedAt > 0 && r.EndedAt >= r.StartedAt {
		durationMs = r.EndedAt - r.StartedAt
	}
	return agentFinalPayload{RunID: r.ID, Status: "ok", Summary: "completed", SessionKey: r.SessionKey,
		Result: agentResult{
			Payloads: []textPayload{{Text: r.Reply}},
			Meta:     agentResultMeta{DurationMs: durationMs, AgentMeta: meta},
		}}, nil
}

type agentWaitParams struct {
	RunID     string   `json:"runId"`
	TimeoutMs *api.Int `json:"timeoutMs"`
}

// mAgentWait waits for a run to end (at most api.WaitTimeout; clients wait
// again for longer). status is ok|error|timeout as in OpenClaw;
// waitTimedOut and runStatus tell a wait that ran out from a run that
// timed out, which OpenClaw cannot.
func (s *Server) mAgentWait(ctx context.Context, cl *call) (any, error) {
	var p agentWaitParams
	if err := decodeParams(cl.method, cl.params, &p); err != nil {
		return nil, err
	}
	if err := requireString(cl.method, "runId", p.RunID); err != nil {
		return nil, err
	}
	if p.TimeoutMs != nil && *p.TimeoutMs < 0 {
		return nil, invalidParams(cl.method, "timeoutMs must be at least 0 (got %d)", *p.TimeoutMs)
	}
	timeout := time.Duration(api.WaitTimeout.Default) * time.Second
	if p.TimeoutMs != nil {
		timeout = time.Duration(min(int64(*p.TimeoutMs), api.WaitTimeout.Max*1000)) * time.Millisecond
	}
	// A chat.send run is named by its idempotencyKey (runaliases.go); the
	// answer names the run as the caller did.
	asked := strings.TrimSpace(p.RunID)
	runID := s.aliases.run(asked)
	answer := func(r domain.Run) waitResultPayload {
		out := waitPayload(r)
		out.RunID = asked
		return out
	}
	if r, ok := cl.c.ended.get(runID); ok {
		return answer(r), nil // its own `agent` call saw it end (endedruns.go)
	}
	r, err := s.eng.WaitRun(ctx, cl.principal(""), api.WaitRequest{RunID: runID, Timeout: timeout})
	if err != nil {
		if domain.ErrorCode(err) == domain.CodeNotFound {
			// INVALID_REQUEST on the wire (as OpenClaw answers), not_found
			// in details.code.
			return nil, domain.Errorf(domain.CodeNotFound, "run not found: %s", p.RunID)
		}
		return nil, err
	}
	return answer(r), nil
}

// waitPayload is agent.wait's result for a run as it stands.
func waitPayload(r domain.Run) waitResultPayload {
	out := waitResultPayload{RunID: r.ID, RunStatus: r.Status, StartedAt: max(r.StartedAt, 0), EndedAt: max(r.EndedAt, 0)}
	switch r.Status {
	case domain.RunOK:
		out.Status = "ok"
	case domain.RunTimeout:
		out.Status, out.Error = "timeout", &r.Error
	case domain.RunError, domain.RunCancelled:
		out.Status, out.Error = "error", &r.Error
	default:
		out.Status, out.WaitTimedOut = "timeout", true
	}
	return out
}
