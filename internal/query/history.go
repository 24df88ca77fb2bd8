package query

import (
	"context"
	"errors"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/policy"
	"github.com/switchboard-go/switchboard/internal/redact"
)

// History returns the newest messages of session key (resolved by the
// engine from p.SessionKey), oldest first, when g may read it: the page
// ending before BeforeMessageID (or at the newest message), after skipping
// Offset messages; agent is the viewer's agent, for the key shown.
func (r Reader) History(ctx context.Context, g Guard, key, agent string, p api.HistoryRequest) (api.HistoryResult, error) {
	if p.Limit <= 0 {
		p.Limit = int(api.HistoryLimit.Default)
	}
	if n, err := api.HistoryLimit.Apply(int64(p.Limit)); err == nil {
		p.Limit = int(n)
	}
	offset, err := api.HistoryOffset.Apply(int64(p.Offset))
	if err != nil {
		return api.HistoryResult{}, err
	}
	p.BeforeMessageID = strings.TrimSpace(p.BeforeMessageID)
	if err := api.MessageIDChars.CheckChars(p.BeforeMessageID); err != nil {
		return api.HistoryResult{}, err
	}
	if err := g.Check(ctx, key, policy.ActionHistory); err != nil {
		return api.HistoryResult{}, err
	}
	res := api.HistoryResult{SessionKey: r.Keys.Display(key, agent), Messages: []api.HistoryMessage{}}
	s, err := r.Store.GetSession(ctx, key)
	if errors.Is(err, domain.ErrNotFound) {
		if p.BeforeMessageID != "" {
			return api.HistoryResult{}, unknownMessageID(p.BeforeMessageID, res.SessionKey)
		}
		return res, nil // a well-formed, visible key with no session yet
	}
	if err != nil {
		return api.HistoryResult{}, err
	}
	res.SessionID = s.SessionID
	// One message past the page tells whether older ones exist.
	q := domain.MessageQuery{SessionID: s.SessionID, Limit: p.Limit + 1, BeforeSeq: p.BeforeSeq,
		BeforeID: p.BeforeMessageID, Offset: int(offset)}
	if !p.IncludeTools {
		q.ExcludeRoles = []string{domain.RoleToolResult, "tool"}
	}
	msgs, err := r.Store.ReadMessages(ctx, key, q)
	if errors.Is(err, domain.ErrNotFound) && p.BeforeMessageID != "" {
		return api.HistoryResult{}, unknownMessageID(p.BeforeMessageID, res.SessionKey)
	}
	if err != nil {
		return api.HistoryResult{}, err
	}
	if len(msgs) > p.Limit {
		res.HasMore = true
		msgs = msgs[1:]
	}
	if p.Raw {
		res.Messages = withIDs(redact.CutTexts(msgs, p.MaxChars))
		res.SetNext()
		return res, nil
	}
	opts := redact.HistoryOptions{}
	if p.MaxChars > 0 && p.MaxChars < redact.DefaultTextMaxChars {
		opts.MaxChars = p.MaxChars // chat.history's maxChars narrows the cap, never widens it
	}
	h := redact.History(msgs, opts)
	if len(h.Messages) == 1 && h.Messages[0].ID == "" && len(msgs) > 0 {
		// The placeholder of an oversized message stands for the newest.
		h.Messages[0].ID = msgs[len(msgs)-1].ID
	}
	res.Messages = withIDs(h.Messages)
	res.Truncated, res.DroppedMessages = h.Truncated, h.DroppedMessages
	res.ContentTruncated, res.ContentRedacted, res.Bytes = h.ContentTruncated, h.ContentRedacted, h.Bytes
	// Messages dropped to fit the byte cap are older than the oldest one
	// returned: the next page starts with them.
	res.HasMore = res.HasMore || h.DroppedMessages
	res.SetNext()
	return res, nil
}

// withIDs pairs each message with its stable id.
func withIDs(msgs []domain.Message) []api.HistoryMessage {
	out := make([]api.HistoryMessage, len(msgs))
	for i, m := range msgs {
		out[i] = api.HistoryMessage{ID: m.ID, Message: m}
	}
	return out
}

func unknownMessageID(id, key string) error {
	return domain.Invalid("beforeMessageId %q is not a message of session %s (use an id from sessions_history or sessions_search)", id, key)
}
