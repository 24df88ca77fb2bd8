package engine

import (
	"context"
	"errors"

	"github.com/switchboard-go/switchboard/internal/api"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/policy"
	"github.com/switchboard-go/switchboard/internal/redact"
)

type HistoryResult = api.HistoryResult

type HistoryParams = api.HistoryRequest

// history returns the newest messages of a session, oldest first.
func (e *Engine) history(ctx context.Context, req Requester, p HistoryParams) (HistoryResult, error) {
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
