package engine

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/switchboard-go/switchboard/internal/api"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/policy"
	"github.com/switchboard-go/switchboard/internal/redact"
)

type HistoryResult = api.HistoryResult

type HistoryParams = api.HistoryRequest

func (e *Engine) toolHistory(ctx context.Context, req Requester, raw json.RawMessage) (ToolOutcome, error) {
	a, err := parseArgs(ToolSessionsHistory, raw, "sessionKey", "limit", "includeTools")
	if err != nil {
		return ToolOutcome{}, err
	}
	p := HistoryParams{SessionKey: a.required("sessionKey", int(api.KeyChars.Max))}
	if n, ok := a.limited("limit", api.HistoryLimit); ok {
		p.Limit = int(n)
	}
	p.IncludeTools, _ = a.boolean("includeTools")
	if err := a.err(); err != nil {
		return ToolOutcome{}, err
	}
	res, err := e.HistoryR(ctx, req, p)
	if err != nil {
		return ToolOutcome{}, err
	}
	return ToolOutcome{Payload: res}, nil
}

// HistoryR returns the newest messages of a session, oldest first.
func (e *Engine) HistoryR(ctx context.Context, req Requester, p HistoryParams) (HistoryResult, error) {
	if p.Limit <= 0 {
		p.Limit = int(api.HistoryLimit.Default)
	}
	if n, err := api.HistoryLimit.Apply(int64(p.Limit)); err == nil {
		p.Limit = int(n)
	}
	key, err := e.resolveRef(ctx, req, p.SessionKey)
	if err != nil {
		return HistoryResult{}, err
	}
	g := e.guardFor(ctx, req)
	if err := g.check(ctx, key, policy.ActionHistory); err != nil {
		return HistoryResult{}, err
	}
	res := HistoryResult{SessionKey: e.keys.Display(key, req.agent(e)), Messages: []domain.Message{}}
	s, err := e.store.GetSession(ctx, key)
	if errors.Is(err, domain.ErrNotFound) {
		return res, nil // a well-formed, visible key with no session yet
	}
	if err != nil {
		return HistoryResult{}, err
	}
	res.SessionID = s.SessionID
	q := domain.MessageQuery{SessionID: s.SessionID, Limit: p.Limit, BeforeSeq: p.BeforeSeq}
	if !p.IncludeTools {
		q.ExcludeRoles = []string{domain.RoleToolResult, "tool"}
	}
	msgs, err := e.store.ReadMessages(ctx, key, q)
	if err != nil {
		return HistoryResult{}, err
	}
	if p.Raw {
		res.Messages = msgs
		if res.Messages == nil {
			res.Messages = []domain.Message{}
		}
		return res, nil
	}
	h := redact.History(msgs, redact.HistoryOptions{})
	res.Messages = h.Messages
	if res.Messages == nil {
		res.Messages = []domain.Message{}
	}
	res.Truncated, res.DroppedMessages = h.Truncated, h.DroppedMessages
	res.ContentTruncated, res.ContentRedacted, res.Bytes = h.ContentTruncated, h.ContentRedacted, h.Bytes
	return res, nil
}
