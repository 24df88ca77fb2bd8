package gateway

import (
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/sessionkey"
)

// SessionRow is one session as the gateway reports it (OpenClaw's
// GatewaySessionRow). Keys are canonical.
type SessionRow struct {
	Key         string `json:"key"`
	Kind        string `json:"kind"` // direct|group
	Label       string `json:"label,omitempty"`
	DisplayName string `json:"displayName,omitempty"`
	// DerivedTitle and LastMessagePreview are filled when sessions.list
	// asks (includeDerivedTitles / includeLastMessage).
	DerivedTitle       string                  `json:"derivedTitle,omitempty"`
	LastMessagePreview string                  `json:"lastMessagePreview,omitempty"`
	Channel            string                  `json:"channel,omitempty"`
	ChatType           string                  `json:"chatType,omitempty"`
	Origin             *domain.Origin          `json:"origin,omitempty"`
	UpdatedAt          int64                   `json:"updatedAt"`
	SessionID          string                  `json:"sessionId"`
	SpawnedBy          string                  `json:"spawnedBy,omitempty"`
	SpawnDepth         int                     `json:"spawnDepth,omitempty"`
	SystemSent         bool                    `json:"systemSent"`
	AbortedLastRun     bool                    `json:"abortedLastRun"`
	ThinkingLevel      string                  `json:"thinkingLevel,omitempty"`
	VerboseLevel       string                  `json:"verboseLevel,omitempty"`
	SendPolicy         string                  `json:"sendPolicy,omitempty"`
	InputTokens        int64                   `json:"inputTokens"`
	OutputTokens       int64                   `json:"outputTokens"`
	TotalTokens        int64                   `json:"totalTokens"`
	EstimatedCostUSD   float64                 `json:"estimatedCostUsd,omitempty"`
	Status             string                  `json:"status,omitempty"`
	StartedAt          int64                   `json:"startedAt,omitempty"`
	EndedAt            int64                   `json:"endedAt,omitempty"`
	RuntimeMs          int64                   `json:"runtimeMs,omitempty"`
	ModelProvider      string                  `json:"modelProvider,omitempty"`
	Model              string                  `json:"model,omitempty"`
	ContextTokens      int64                   `json:"contextTokens,omitempty"`
	DeliveryContext    *domain.DeliveryContext `json:"deliveryContext,omitempty"`
	LastChannel        string                  `json:"lastChannel,omitempty"`
	LastTo             string                  `json:"lastTo,omitempty"`
	LastAccountID      string                  `json:"lastAccountId,omitempty"`
	Usage              *domain.SessionUsage    `json:"usage,omitempty"`
	Budget             *domain.Budget          `json:"budget,omitempty"`
	BudgetDeadline     int64                   `json:"budgetDeadline,omitempty"`
	Progress           *domain.Progress        `json:"progress,omitempty"`
}

// sessionRow builds the gateway row of a session as an event carries it
// (sessions.changed): the one mapping of a session (api.RowOf), canonical
// keys, the model the session last ran on or is set to. Answers to a
// caller use the engine's row of it (listRow), which also knows the
// agent's default model.
func sessionRow(x domain.Session) SessionRow { return listRow(api.RowOf(x)) }

// providerOf is the provider part of a model reference ("openai" of
// "openai/gpt-4.1-mini"; "script" of "script").
func providerOf(ref string) string {
	if i := strings.IndexByte(ref, '/'); i >= 0 {
		return ref[:i]
	}
	return ref
}

// listRow builds the gateway row of an api.SessionRow (keys already
// canonical).
func listRow(x api.SessionRow) SessionRow {
	r := SessionRow{
		Key:                x.Key,
		Kind:               "direct",
		Label:              x.Label,
		DisplayName:        x.DisplayName,
		DerivedTitle:       x.DerivedTitle,
		LastMessagePreview: x.LastMessagePreview,
		Channel:            x.Channel,
		ChatType:           x.ChatType,
		Origin:             x.Origin,
		UpdatedAt:          x.UpdatedAt,
		SessionID:          x.SessionID,
		SpawnedBy:          x.SpawnedBy,
		SpawnDepth:         x.SpawnDepth,
		SystemSent:         x.SystemSent,
		AbortedLastRun:     x.AbortedLastRun,
		ThinkingLevel:      x.ThinkingLevel,
		VerboseLevel:       x.VerboseLevel,
		SendPolicy:         x.SendPolicy,
		InputTokens:        x.InputTokens,
		OutputTokens:       x.OutputTokens,
		TotalTokens:        x.TotalTokens,
		EstimatedCostUSD:   x.EstimatedCostUSD,
		Status:             x.Status,
		StartedAt:          x.StartedAt,
		EndedAt:            x.EndedAt,
		RuntimeMs:          x.RuntimeMs,
		ModelProvider:      x.ModelProvider,
		Model:              x.Model,
		ContextTokens:      x.ContextTokens,
		DeliveryContext:    x.DeliveryContext,
		Usage:              x.Usage,
		Budget:             x.Budget,
		BudgetDeadline:     x.BudgetDeadline,
		Progress:           x.Progress,
		LastChannel:        x.LastChannel,
		LastTo:             x.LastTo,
		LastAccountID:      x.LastAccountID,
	}
	if r.ChatType == sessionkey.ChatTypeGroup || r.ChatType == sessionkey.ChatTypeChannel {
		r.Kind = "group"
	}
	if r.ModelProvider == "" {
		r.ModelProvider = providerOf(r.Model)
	}
	if r.RuntimeMs == 0 && x.StartedAt > 0 && x.EndedAt >= x.StartedAt {
		r.RuntimeMs = x.EndedAt - x.StartedAt
	}
	if d := x.DeliveryContext; d != nil {
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
