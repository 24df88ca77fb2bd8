package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/attachments"
	"github.com/switchboard-go/switchboard/internal/domain"
)

type chatHistoryParams struct {
	SessionKey string   `json:"sessionKey"`
	Limit      *api.Int `json:"limit"`
	// MaxChars cuts each text field (api.ChatHistoryMaxChars).
	MaxChars *api.Int `json:"maxChars"`
	// InputRunIDs are runs whose user message the caller sent and asks
	// about (inputConsumptions).
	InputRunIDs []string `json:"inputRunIds"`
}

// mChatHistory is a session's transcript (raw, tools included, for an
// operator; sanitized for a requester, which sees only sessions it may).
func (s *Server) mChatHistory(ctx context.Context, cl *call) (any, error) {
	var p chatHistoryParams
	if err := decodeParams(cl.method, cl.params, &p); err != nil {
		return nil, err
	}
	if err := requireString(cl.method, "sessionKey", p.SessionKey); err != nil {
		return nil, err
	}
	limit, err := limited(cl.method, api.ChatHistoryLimit, p.Limit.Int64())
	if err != nil {
		return nil, err
	}
	maxChars, err := limited(cl.method, api.ChatHistoryMaxChars, p.MaxChars.Int64())
	if err != nil {
		return nil, err
	}
	pr := cl.principal("")
	h, err := s.eng.History(ctx, pr, api.HistoryRequest{SessionKey: p.SessionKey, Limit: int(limit), IncludeTools: true, Raw: true,
		MaxChars: int(maxChars)})
	if err != nil {
		return nil, err
	}
	key := s.canonical(ctx, pr, h.SessionKey)
	out := map[string]any{"sessionKey": key, "sessionId": h.SessionID, "messages": s.identifiedMessages(h.Messages)}
	if p.InputRunIDs != nil {
		out["inputConsumptions"] = s.inputConsumptions(p.InputRunIDs, h.Messages)
	}
	sess, err := observe(s.metrics, "get_session", func() (api.SessionRow, error) {
		return s.eng.GetSession(ctx, pr, key)
	})
	switch {
	case err == nil:
		out["thinkingLevel"], out["verboseLevel"] = sess.ThinkingLevel, sess.VerboseLevel
		// Without the session's runs (a caller that may not list them)
		// the history goes without sessionInfo, as OpenClaw's does for a
		// session it has no row of.
		if info, err := s.sessionInfo(ctx, pr, key, sess); err == nil {
			out["sessionInfo"] = info
		}
	case !errors.Is(err, domain.ErrNotFound) && domain.ErrorCode(err) != domain.CodeNotFound:
		return nil, err
	}
	return out, nil
}

type chatSendParams struct {
	SessionKey string `json:"sessionKey"`
	Message    string `json:"message"`
	// IdempotencyKey is optional, but not empty (idempotencyKey()).
	IdempotencyKey *string  `json:"idempotencyKey"`
	Thinking       string   `json:"thinking"`
	TimeoutMs      *api.Int `json:"timeoutMs"`
	// The originating* hints say where the message came from and where
	// replies go (OpenClaw's chat.send); without them the message is a
	// webchat message.
	OriginatingChannel   string          `json:"originatingChannel"`
	OriginatingTo        string          `json:"originatingTo"`
	OriginatingAccountID string          `json:"originatingAccountId"`
	OriginatingThreadID  json.RawMessage `json:"originatingThreadId"`
	// Deliver sends the reply back to the originating channel when that
	// is an external one (best effort: a webchat message needs none).
	Deliver bool `json:"deliver"`
	// Attachments are OpenClaw's inline files (chatFiles).
	Attachments json.RawMessage `json:"attachments"`
}

// mChatSend posts a user message (webchat) and answers at once; the run's
// progress arrives as `agent` and `chat` events.
func (s *Server) mChatSend(ctx context.Context, cl *call) (any, error) {
	var p chatSendParams
	if err := decodeParams(cl.method, cl.params, &p); err != nil {
		return nil, err
	}
	if err := requireString(cl.method, "sessionKey", p.SessionKey); err != nil {
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
	timeout, err := chatTimeout(cl.method, "timeoutMs", p.TimeoutMs.Int64(), 1)
	if err != nil {
		return nil, err
	}
	thread, err := threadID(cl.method, "originatingThreadId", p.OriginatingThreadID)
	if err != nil {
		return nil, err
	}
	channel := strings.TrimSpace(p.OriginatingChannel)
	if channel == "" {
		channel = "webchat"
	}
	expected := s.aliases.expect(p.Message, idem)
	res, err := s.eng.Chat(ctx, cl.principal(""), api.ChatRequest{SessionKey: p.SessionKey, Message: p.Message, Attachments: files, Channel: channel,
		To: p.OriginatingTo, AccountID: p.OriginatingAccountID, ThreadID: thread,
		Deliver: p.Deliver, BestEffortDeliver: true,
		IdempotencyKey: idem, Thinking: p.Thinking, TimeoutSeconds: timeout})
	expected()
	if err != nil {
		return nil, err
	}
	if res.Command != "" {
		return map[string]any{"runId": "", "status": "ok", "command": res.Command, "reply": res.Reply, "sessionKey": res.SessionKey}, nil
	}
	// The run is named by the caller's key from here on, in this answer
	// and in the run's events (runaliases.go), before the connection
	// claims it.
	runID := res.Run.ID
	// A run another surface started with the same key (agent, HTTP chat)
	// keeps the id that surface answered.
	if idem != "" && (res.Created || s.aliases.public(res.Run.ID) == idem) && s.aliases.add(res.Run.ID, idem) {
		runID = idem
	}
	// The connection gets the events of the run it started (docs/design.md#events-and-subscriptions).
	if !domain.RunTerminal(res.Run.Status) {
		s.fan.claimRun(cl.c.sub, res.Run.ID)
	}
	status := "started"
	if !res.Created {
		// A repeated idempotencyKey: report the first run as it stands.
		status = "in_flight"
		if domain.RunTerminal(res.Run.Status) {
			status = string(res.Run.Status)
		}
	}
	return map[string]any{"runId": runID, "status": status, "sessionKey": res.SessionKey}, nil
}

// idempotencyKey reads a chat surface's idempotencyKey: absent is no key
// (a switchboard leniency: OpenClaw requires one), and a given key must
// not be empty or blank — OpenClaw's schema says NonEmptyString, and ""
// taken as "no key" would drop the deduplication the caller asked for.
func idempotencyKey(method string, v *string) (string, error) {
	if v == nil {
		return "", nil
	}
	if strings.TrimSpace(*v) == "" {
		return "", invalidParams(method, "idempotencyKey must not be empty (omit it to send without one)")
	}
	return *v, nil
}

// chatFiles decodes the attachments of a chat surface (chat.send, agent,
// HTTP chat) in OpenClaw's shape under tools.sessions_spawn.attachments'
// limits, the ones every inline file is held to. A refusal names the entry,
// its field and the limit (`attachments[0].content: … over maxFileBytes …`);
// a file is never dropped silently. Absent, null or [] is no file.
func (s *Server) chatFiles(method string, raw json.RawMessage) ([]attachments.File, error) {
	files, err := attachments.DecodeChat(raw, attachments.LimitsFromConfig(s.attachmentsConfig()))
	if err != nil {
		return nil, invalidParams(method, "%s", domain.ErrorMessage(err))
	}
	return files, nil
}

// requireMessage checks a chat message: it may be empty only when files
// come with it (OpenClaw's "message or attachment required").
func requireMessage(method, msg string, files []attachments.File) error {
	if len(files) > 0 {
		return nil
	}
	return requireString(method, "message", msg)
}

// chatTimeout reads a run timeout given in units of unitMs milliseconds
// as whole seconds (rounded up), within api.ChatTimeout.
func chatTimeout(method, name string, v *int64, unitMs int64) (int, error) {
	if v == nil {
		return 0, nil
	}
	if *v < 0 {
		return 0, invalidParams(method, "%s must be at least 0 (got %d)", name, *v)
	}
	secs := api.ChatTimeout.Max + 1 // too large: refused below with the limit's words
	if *v <= api.ChatTimeout.Max*1000/unitMs {
		secs = (*v*unitMs + 999) / 1000
	}
	n, err := api.ChatTimeout.Apply(secs)
	if err != nil {
		return 0, invalidParams(method, "%s: %s", name, domain.ErrorMessage(err))
	}
	return int(n), nil
}

type chatAbortParams struct {
	SessionKey string `json:"sessionKey"`
	RunID      string `json:"runId"`
}

// mChatAbort cancels a session's queued and running runs (or the one
// named) and answers each as api.CancelResult: the run with its final
// status and whether this call cancelled it.
func (s *Server) mChatAbort(ctx context.Context, cl *call) (any, error) {
	var p chatAbortParams
	if err := decodeParams(cl.method, cl.params, &p); err != nil {
		return nil, err
	}
	if err := requireString(cl.method, "sessionKey", p.SessionKey); err != nil {
		return nil, err
	}
	pr := cl.principal("")
	var targets []domain.Run
	if id := s.aliases.run(strings.TrimSpace(p.RunID)); id != "" {
		r, err := s.eng.GetRun(ctx, pr, id)
		if err != nil {
			return nil, err
		}
		if res, err := s.eng.Resolve(ctx, pr, api.ResolveRequest{Key: p.SessionKey}); err != nil || r.SessionKey != res.Key {
			return nil, invalidParams(cl.method, "run %s belongs to session %s, not %s", id, r.SessionKey, p.SessionKey)
		}
		targets = append(targets, r)
	} else {
		runs, err := s.eng.ListRuns(ctx, pr, api.RunsRequest{SessionKey: p.SessionKey, Statuses: []domain.RunStatus{domain.RunQueued, domain.RunRunning},
			Limit: int(api.RunsListLimit.Max)})
		if err != nil {
			return nil, err
		}
		targets = runs
	}
	ids := []string{}
	results := []api.CancelResult{}
	for _, r := range targets {
		if domain.RunTerminal(r.Status) {
			continue
		}
		res, err := s.eng.CancelRun(ctx, pr, r.ID)
		if err != nil {
			return nil, err
		}
		res.ID = s.aliases.name(r.ID)
		results = append(results, res)
		if res.Cancelled {
			ids = append(ids, res.ID)
		}
	}
	return map[string]any{"ok": true, "aborted": len(ids) > 0, "runIds": ids, "runs": results}, nil
}
