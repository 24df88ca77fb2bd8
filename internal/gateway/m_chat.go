package gateway

import (
	"context"
	"errors"
	"strings"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/engine"
)

type chatHistoryParams struct {
	SessionKey string `json:"sessionKey"`
	Limit      *int64 `json:"limit"`
	// maxChars is accepted and ignored: chat.history returns raw messages.
}

func (s *Server) mChatHistory(ctx context.Context, cl *call) (any, error) {
	var p chatHistoryParams
	if err := decodeParams(cl.method, cl.params, &p); err != nil {
		return nil, err
	}
	if err := requireString(cl.method, "sessionKey", p.SessionKey, 0); err != nil {
		return nil, err
	}
	if err := checkRange(cl.method, "limit", p.Limit, 1, 1000); err != nil {
		return nil, err
	}
	limit := 200
	if p.Limit != nil {
		limit = int(*p.Limit)
	}
	key, err := s.eng.CanonicalKey(ctx, p.SessionKey)
	if err != nil {
		return nil, err
	}
	h, err := s.eng.HistoryR(ctx, engine.Requester{Operator: true}, engine.HistoryParams{SessionKey: key, Limit: limit, IncludeTools: true, Raw: true})
	if err != nil {
		return nil, err
	}
	out := map[string]any{"sessionKey": key, "sessionId": h.SessionID, "messages": h.Messages}
	sess, err := observe(s.metrics, "get_session", func() (domain.Session, error) {
		return s.eng.Store().GetSession(ctx, key)
	})
	switch {
	case err == nil:
		out["thinkingLevel"], out["verboseLevel"] = sess.ThinkingLevel, sess.VerboseLevel
	case !errors.Is(err, domain.ErrNotFound):
		return nil, err
	}
	return out, nil
}

type chatSendParams struct {
	SessionKey     string `json:"sessionKey"`
	Message        string `json:"message"`
	IdempotencyKey string `json:"idempotencyKey"`
	Thinking       string `json:"thinking"`
	TimeoutMs      *int64 `json:"timeoutMs"`
}

// mChatSend posts a user message (webchat) and answers at once; the run's
// progress arrives as `agent` and `chat` events.
func (s *Server) mChatSend(ctx context.Context, cl *call) (any, error) {
	var p chatSendParams
	if err := decodeParams(cl.method, cl.params, &p); err != nil {
		return nil, err
	}
	if err := requireString(cl.method, "sessionKey", p.SessionKey, 0); err != nil {
		return nil, err
	}
	if err := requireString(cl.method, "message", p.Message, 0); err != nil {
		return nil, err
	}
	if err := checkRange(cl.method, "timeoutMs", p.TimeoutMs, 0, maxRunTimeoutMs); err != nil {
		return nil, err
	}
	if err := s.commandScope(cl, p.Message); err != nil {
		return nil, err
	}
	res, err := s.eng.ChatR(ctx, engine.ChatRequest{SessionKey: p.SessionKey, Message: p.Message, Channel: "webchat",
		IdempotencyKey: p.IdempotencyKey, Thinking: p.Thinking, TimeoutSeconds: msToSeconds(p.TimeoutMs)})
	if err != nil {
		return nil, err
	}
	if res.Command != "" {
		return map[string]any{"runId": "", "status": "ok", "command": res.Command, "reply": res.Reply, "sessionKey": res.SessionKey}, nil
	}
	status := "started"
	if !res.Created {
		// A repeated idempotencyKey: report the first run as it stands.
		status = "in_flight"
		if domain.RunTerminal(res.Run.Status) {
			status = res.Run.Status
		}
	}
	return map[string]any{"runId": res.Run.ID, "status": status, "sessionKey": res.SessionKey}, nil
}

type chatAbortParams struct {
	SessionKey string `json:"sessionKey"`
	RunID      string `json:"runId"`
}

func (s *Server) mChatAbort(ctx context.Context, cl *call) (any, error) {
	var p chatAbortParams
	if err := decodeParams(cl.method, cl.params, &p); err != nil {
		return nil, err
	}
	if err := requireString(cl.method, "sessionKey", p.SessionKey, 0); err != nil {
		return nil, err
	}
	key, err := s.eng.CanonicalKey(ctx, p.SessionKey)
	if err != nil {
		return nil, err
	}
	var targets []domain.Run
	if id := strings.TrimSpace(p.RunID); id != "" {
		r, err := s.eng.GetRunR(ctx, id)
		if err != nil {
			return nil, err
		}
		if r.SessionKey != key {
			return nil, invalidParams(cl.method, "run %s belongs to session %s, not %s", id, r.SessionKey, key)
		}
		targets = append(targets, r)
	} else {
		targets, err = s.eng.ListRunsR(ctx, domain.RunQuery{SessionKey: key, Statuses: []string{domain.RunQueued, domain.RunRunning}})
		if err != nil {
			return nil, err
		}
	}
	ids := []string{}
	for _, r := range targets {
		if domain.RunTerminal(r.Status) {
			continue
		}
		if _, err := s.eng.CancelRunR(ctx, r.ID); err != nil {
			return nil, err
		}
		ids = append(ids, r.ID)
	}
	return map[string]any{"ok": true, "aborted": len(ids) > 0, "runIds": ids}, nil
}

// maxRunTimeoutMs bounds run timeouts given in requests (one week).
const maxRunTimeoutMs = 7 * 24 * 3600 * 1000

// msToSeconds rounds a millisecond timeout up to whole seconds (0 = none).
func msToSeconds(ms *int64) int {
	if ms == nil || *ms <= 0 {
		return 0
	}
	return int((*ms + 999) / 1000)
}

// commandScope requires operator.admin for messages that are session
// commands with admin effects (/new, /reset, /send), as OpenClaw does.
func (s *Server) commandScope(cl *call, msg string) error {
	return commandScope(cl.c.scopes, msg)
}

func commandScope(scopes []string, msg string) error {
	fields := strings.Fields(strings.ToLower(msg))
	if len(fields) == 0 {
		return nil
	}
	switch fields[0] {
	case "/new", "/reset", "/send":
		if !scopeSatisfied(scopes, ScopeAdmin) {
			return missingScope(ScopeAdmin)
		}
	}
	return nil
}
