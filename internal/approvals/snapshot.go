package approvals

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// Presentation limits of OpenClaw's plugin approval presentation.
const (
	maxTitle       = 80
	maxDescription = 512
	maxDetail      = 16384
)

// URLPath is where the web UI shows approval id (its Approvals view).
func URLPath(id string) string { return "/#/approvals/" + url.PathEscape(id) }

// Presentation is the reviewer's view of a held call: what it is (title),
// who calls whom (description) and the message or task (detail).
func Presentation(a domain.Approval, text string) api.ApprovalPresentation {
	title := a.Tool + " to " + a.TargetKey
	if a.Tool == api.ToolSessionsSpawn {
		title = a.Tool + " of agent " + a.TargetAgent
	}
	desc := fmt.Sprintf("%s asks to %s %s (approvals.rules[%d]).", a.RequesterKey, verb(a.Tool), a.TargetKey, a.Rule)
	switch a.Tool {
	case api.ToolSessionsSpawn:
		desc = fmt.Sprintf("%s asks to spawn a sub-agent of agent %s (approvals.rules[%d]).", a.RequesterKey, a.TargetAgent, a.Rule)
	case ToolLoopsResume:
		title = "resume the paused edge to " + a.TargetKey
		desc = fmt.Sprintf("The loop breaker paused %s → %s; allow resumes the edge and sends its held messages, deny keeps it paused.", a.RequesterKey, a.TargetKey)
	}
	p := api.ApprovalPresentation{
		Kind: api.ApprovalKindPlugin, Title: clip(title, maxTitle), Description: clip(desc, maxDescription),
		Detail: clip(text, maxDetail), Severity: "warning", ToolName: a.Tool, AgentID: a.RequesterAgent,
		AllowedDecisions: []string{api.DecisionAllowOnce, api.DecisionAllowAlways, api.DecisionDeny},
	}
	if a.Tool == ToolLoopsResume {
		// A resume has no edge to allow always: it is asked once per pause.
		p.AllowedDecisions = []string{api.DecisionAllowOnce, api.DecisionDeny}
	}
	return p
}

func verb(tool string) string {
	if tool == api.ToolSessionsSend {
		return "send a message to"
	}
	return "call"
}

// Text is the message or task of a held call (its "send" or "spawn"),
// the reviewer's detail.
func Text(call json.RawMessage) string {
	var c struct {
		Send *struct {
			Message string
		} `json:"send"`
		Spawn *struct {
			Task string
		} `json:"spawn"`
		Resume *struct {
			Reason string `json:"reason"`
		} `json:"resume"`
	}
	_ = json.Unmarshal(call, &c)
	switch {
	case c.Send != nil:
		return c.Send.Message
	case c.Spawn != nil:
		return c.Spawn.Task
	case c.Resume != nil:
		return c.Resume.Reason
	}
	return ""
}

// Snapshot is a in OpenClaw's ApprovalSnapshot shape, the held message or
// task shown as its detail.
func Snapshot(a domain.Approval) api.ApprovalSnapshot {
	text := Text(a.Call)
	s := api.ApprovalSnapshot{
		ID: a.ID, URLPath: URLPath(a.ID), CreatedAtMs: a.CreatedAt, ExpiresAtMs: a.ExpiresAt,
		Presentation: Presentation(a, text), Status: string(a.Status),
	}
	if a.Status == domain.ApprovalPending {
		s.SourceSessionKey = a.RequesterKey
		return s
	}
	at := a.ResolvedAt
	s.ResolvedAtMs = &at
	s.Source = &api.ApprovalSource{AgentID: a.RequesterAgent, SessionKey: a.RequesterKey}
	s.Resolver = resolverOf(a.Resolver)
	switch a.Status {
	case domain.ApprovalAllowed, domain.ApprovalDenied:
		s.Decision, s.Reason = a.Decision, "user"
	case domain.ApprovalExpired:
		s.Reason = "timeout"
	case domain.ApprovalCancelled:
		s.Reason = "run-aborted"
	}
	return s
}

// resolverOf reads a stored resolver, "kind:id" (or just the kind).
func resolverOf(s string) *api.ApprovalResolver {
	if s == "" {
		return nil
	}
	kind, id, _ := strings.Cut(s, ":")
	return &api.ApprovalResolver{Kind: kind, ID: id}
}

// clip shortens s to n characters; an empty s becomes "-" since every
// presentation text is at least one character.
func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return "-"
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
