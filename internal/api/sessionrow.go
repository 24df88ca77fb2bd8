package api

import (
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/sessionkey"
)

// RowOf maps a stored session to its row: the one mapping every session
// row starts from, whichever surface shows it (sessions_list over the
// WebSocket gateway, HTTP and MCP, the web UI, the sessions.changed
// event). Keys are canonical and the model is the session's own (the one
// it last ran on, else its override); the engine then writes a
// requester's view of the keys and the agent's default model.
func RowOf(s domain.Session) SessionRow {
	r := SessionRow{
		Key:              s.Key,
		Kind:             s.Kind,
		Channel:          channelOf(s),
		ChatType:         sessionkey.ChatTypeOf(s.ChatType, s.Key),
		AgentID:          s.AgentID,
		Label:            s.Label,
		DisplayName:      s.DisplayName,
		Origin:           s.Origin,
		SpawnedBy:        s.SpawnedBy,
		DeliveryContext:  s.Delivery,
		UpdatedAt:        s.UpdatedAt,
		SessionID:        s.SessionID,
		Model:            s.Model,
		ModelProvider:    s.ModelProvider,
		ContextTokens:    s.ContextTokens,
		InputTokens:      s.InputTokens,
		OutputTokens:     s.OutputTokens,
		TotalTokens:      s.TotalTokens,
		SpawnDepth:       s.SpawnDepth,
		ForkedFromParent: s.ForkedFromParent,
		EstimatedCostUSD: s.EstimatedCostUSD,
		Status:           s.Status,
		StartedAt:        s.StartedAt,
		EndedAt:          s.EndedAt,
		ThinkingLevel:    s.ThinkingLevel,
		VerboseLevel:     s.VerboseLevel,
		SystemSent:       s.SystemSent,
		AbortedLastRun:   s.AbortedLastRun,
		SendPolicy:       s.SendPolicy,
		LastChannel:      s.LastChannel,
		LastTo:           s.LastTo,
		LastAccountID:    s.LastAccount,
		ArchivedAt:       s.ArchivedAt,
	}
	if r.Model == "" {
		r.Model = s.ModelOverride
	}
	if s.SpawnedBy != "" {
		r.ParentSessionKey = s.SpawnedBy
	}
	if s.StartedAt > 0 && s.EndedAt >= s.StartedAt {
		r.RuntimeMs = s.EndedAt - s.StartedAt
	}
	if d := s.Delivery; d != nil {
		if d.Channel != "" {
			r.LastChannel = d.Channel
		}
		if d.To != "" {
			r.LastTo = d.To
		}
		if d.AccountID != "" {
			r.LastAccountID = d.AccountID
		}
	}
	return r
}

// channelOf derives a session's channel the way the session tools do.
func channelOf(s domain.Session) string {
	var origin, delivery string
	if s.Origin != nil {
		origin = s.Origin.Provider
	}
	if s.Delivery != nil {
		delivery = s.Delivery.Channel
	}
	return sessionkey.DeriveChannel(s.Kind, s.Channel, origin, delivery, s.LastChannel, s.Key)
}
