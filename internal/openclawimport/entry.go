package openclawimport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// entry is one value of sessions.json (and the entry_json of an agent
// database's session row). Only the fields switchboard keeps are decoded;
// unknown fields are ignored. Export writes the same fields back.
type entry struct {
	SessionID   string  `json:"sessionId"`
	UpdatedAt   flexInt `json:"updatedAt"`
	SessionFile string  `json:"sessionFile,omitempty"`

	Channel         string           `json:"channel,omitempty"`
	LastChannel     string           `json:"lastChannel,omitempty"`
	LastTo          flexString       `json:"lastTo,omitempty"`
	LastAccountID   flexString       `json:"lastAccountId,omitempty"`
	DeliveryContext *deliveryContext `json:"deliveryContext,omitempty"`
	Origin          *origin          `json:"origin,omitempty"`
	ChatType        string           `json:"chatType,omitempty"`
	Label           string           `json:"label,omitempty"`
	DisplayName     string           `json:"displayName,omitempty"`

	Model         string `json:"model,omitempty"`
	ModelProvider string `json:"modelProvider,omitempty"`

	InputTokens      flexInt   `json:"inputTokens,omitempty"`
	OutputTokens     flexInt   `json:"outputTokens,omitempty"`
	TotalTokens      flexInt   `json:"totalTokens,omitempty"`
	ContextTokens    flexInt   `json:"contextTokens,omitempty"`
	EstimatedCostUSD flexFloat `json:"estimatedCostUsd,omitempty"`

	SpawnedBy        string  `json:"spawnedBy,omitempty"`
	ParentSessionKey string  `json:"parentSessionKey,omitempty"`
	SpawnDepth       flexInt `json:"spawnDepth,omitempty"`
	ForkedFromParent bool    `json:"forkedFromParent,omitempty"`

	ThinkingLevel  string `json:"thinkingLevel,omitempty"`
	VerboseLevel   string `json:"verboseLevel,omitempty"`
	SendPolicy     string `json:"sendPolicy,omitempty"`
	SystemSent     bool   `json:"systemSent,omitempty"`
	AbortedLastRun bool   `json:"abortedLastRun,omitempty"`

	Status    string  `json:"status,omitempty"`
	StartedAt flexInt `json:"startedAt,omitempty"`
	EndedAt   flexInt `json:"endedAt,omitempty"`
}

type deliveryContext struct {
	Channel   string     `json:"channel,omitempty"`
	To        flexString `json:"to,omitempty"`
	AccountID flexString `json:"accountId,omitempty"`
	ThreadID  flexString `json:"threadId,omitempty"`
}

type origin struct {
	Provider  string     `json:"provider,omitempty"`
	AccountID flexString `json:"accountId,omitempty"`
}

// session returns base with the entry's fields written over it: a new row
// when base is the zero Session, or an existing row of the store updated
// from OpenClaw (fields OpenClaw does not have, like archive times, are
// kept). spawnedBy is the canonical parent key ("" when none).
func (e *entry) session(base domain.Session, key, agentID, kind, spawnedBy string, now int64) domain.Session {
	s := base
	s.Key, s.AgentID, s.SessionID, s.Kind = key, agentID, e.SessionID, kind
	s.Channel, s.ChatType = e.Channel, e.ChatType
	s.Label, s.DisplayName = e.Label, e.DisplayName
	s.LastChannel, s.LastTo, s.LastAccount = e.LastChannel, string(e.LastTo), string(e.LastAccountID)
	s.SpawnedBy, s.SpawnDepth, s.ForkedFromParent = spawnedBy, int(e.SpawnDepth), e.ForkedFromParent
	s.Model, s.ModelProvider = e.Model, e.ModelProvider
	s.ThinkingLevel, s.VerboseLevel = e.ThinkingLevel, e.VerboseLevel
	s.SystemSent, s.AbortedLastRun = e.SystemSent, e.AbortedLastRun
	s.InputTokens, s.OutputTokens = int64(e.InputTokens), int64(e.OutputTokens)
	s.TotalTokens, s.ContextTokens = int64(e.TotalTokens), int64(e.ContextTokens)
	s.EstimatedCostUSD = float64(e.EstimatedCostUSD)
	s.Status, s.StartedAt, s.EndedAt = e.Status, int64(e.StartedAt), int64(e.EndedAt)
	s.UpdatedAt = int64(e.UpdatedAt)
	if s.UpdatedAt <= 0 {
		s.UpdatedAt = now
	}
	s.SendPolicy = ""
	switch e.SendPolicy {
	case domain.SendPolicyAllow, domain.SendPolicyDeny:
		s.SendPolicy = e.SendPolicy
	}
	if d := e.DeliveryContext; d != nil && *d != (deliveryContext{}) {
		s.Delivery = &domain.DeliveryContext{Channel: d.Channel, To: string(d.To), AccountID: string(d.AccountID), ThreadID: string(d.ThreadID)}
	}
	if o := e.Origin; o != nil && *o != (origin{}) {
		s.Origin = &domain.Origin{Provider: o.Provider, AccountID: string(o.AccountID)}
	}
	// Group keys name their channel and chat type (docs/design.md#session-keys-and-resolution); older
	// entries may not carry them.
	if rest, ok := strings.CutPrefix(key, "agent:"+agentID+":"); ok {
		segs := strings.Split(rest, ":")
		if i := groupMarker(rest); i > 0 {
			if s.Channel == "" {
				s.Channel = segs[i-1]
			}
			if s.ChatType == "" {
				s.ChatType = segs[i]
			}
		}
	}
	return s
}

// flexInt accepts a JSON number (integral or not), a numeric string or
// null, because hand-edited and older stores are not consistent.
type flexInt int64

func (f *flexInt) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		*f = 0
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		b = []byte(strings.TrimSpace(s))
		if len(b) == 0 {
			*f = 0
			return nil
		}
	}
	if n, err := strconv.ParseInt(string(b), 10, 64); err == nil {
		*f = flexInt(n)
		return nil
	}
	x, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsNaN(x) || math.Abs(x) > math.MaxInt64/2 {
		return fmt.Errorf("want an integer, got %.40s", b)
	}
	*f = flexInt(x)
	return nil
}

// flexFloat accepts a JSON number or null.
type flexFloat float64

func (f *flexFloat) UnmarshalJSON(b []byte) error {
	if string(bytes.TrimSpace(b)) == "null" {
		*f = 0
		return nil
	}
	var x float64
	if err := json.Unmarshal(b, &x); err != nil {
		return err
	}
	*f = flexFloat(x)
	return nil
}

// flexString accepts a string, a number (thread and chat ids are often
// numeric) or null.
type flexString string

func (f *flexString) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case string(b) == "null":
		*f = ""
		return nil
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*f = flexString(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("want a string or a number, got %.40s", b)
	}
	*f = flexString(n.String())
	return nil
}
