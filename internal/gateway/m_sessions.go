package gateway

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/engine"
)

// sessions.list defaults: OpenClaw returns every row when no limit is
// given; switchboard bounds that.
const (
	sessionsListDefault = 1000
	sessionsListMax     = 10000
)

type sessionsListParams struct {
	Limit         *int64 `json:"limit"`
	ActiveMinutes *int64 `json:"activeMinutes"`
	Label         string `json:"label"`
	SpawnedBy     string `json:"spawnedBy"`
	AgentID       string `json:"agentId"`
	Search        string `json:"search"`
	// includeGlobal, includeUnknown, includeDerivedTitles and
	// includeLastMessage are accepted and ignored.
}

// mSessionsList reads the store directly rather than through
// engine.ListSessions: operator listing has no visibility filter, and the
// gateway row needs canonical keys and fields (token counts, chat type,
// model provider) the tool row does not carry.
func (s *Server) mSessionsList(ctx context.Context, cl *call) (any, error) {
	var p sessionsListParams
	if err := decodeParams(cl.method, cl.params, &p); err != nil {
		return nil, err
	}
	if p.Limit != nil && *p.Limit < 1 {
		return nil, invalidParams(cl.method, "limit must be at least 1 (got %d)", *p.Limit)
	}
	if err := checkRange(cl.method, "activeMinutes", p.ActiveMinutes, 1, 525_600); err != nil {
		return nil, err
	}
	q := domain.SessionQuery{Limit: sessionsListDefault, Label: strings.TrimSpace(p.Label), Search: strings.TrimSpace(p.Search)}
	if p.Limit != nil {
		q.Limit = int(min(*p.Limit, sessionsListMax))
	}
	now := s.now().UnixMilli()
	if p.ActiveMinutes != nil {
		q.UpdatedSince = now - *p.ActiveMinutes*60_000
	}
	if p.AgentID != "" {
		q.AgentIDs = []string{strings.ToLower(strings.TrimSpace(p.AgentID))}
	}
	if p.SpawnedBy != "" {
		key, err := s.eng.CanonicalKey(ctx, p.SpawnedBy)
		if err != nil {
			return nil, invalidParams(cl.method, "spawnedBy: %s", domain.ErrorMessage(err))
		}
		q.SpawnedBy = key
	}
	rows, err := observe(s.metrics, "list_sessions", func() ([]domain.Session, error) {
		return s.eng.Store().ListSessions(ctx, q)
	})
	if err != nil {
		return nil, err
	}
	out := make([]SessionRow, len(rows))
	for i, r := range rows {
		out[i] = s.sessionRow(r)
	}
	model := s.cfg.AgentModel(s.cfg.DefaultAgentID())
	return map[string]any{
		"ts":    now,
		"path":  s.storePath(),
		"count": len(out),
		"defaults": map[string]any{
			"modelProvider": providerOf(model),
			"model":         model,
			"contextTokens": nil,
		},
		"sessions": out,
	}, nil
}

// storePath is the `path` of sessions.list: where transcripts of an agent
// live, with the agent as `{agentId}` as OpenClaw clients expect (they
// resolve `<dir of path>/<sessionId>.jsonl`).
func (s *Server) storePath() string {
	p := s.eng.TranscriptPath(domain.Session{AgentID: "{agentId}", SessionID: "x"})
	if p == "" {
		return "(multiple)"
	}
	return filepath.Join(filepath.Dir(p), "sessions.json")
}

type sessionsResolveParams struct {
	Key       string `json:"key"`
	SessionID string `json:"sessionId"`
	Label     string `json:"label"`
	AgentID   string `json:"agentId"`
}

func (s *Server) mSessionsResolve(ctx context.Context, cl *call) (any, error) {
	var p sessionsResolveParams
	if err := decodeParams(cl.method, cl.params, &p); err != nil {
		return nil, err
	}
	key, err := s.eng.Resolve(ctx, p.Key, p.SessionID, p.Label, p.AgentID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"ok": true, "key": key}, nil
}

// patchFields are the sessions.patch fields switchboard implements.
var patchFields = []string{"label", "sendPolicy", "model", "thinkingLevel", "verboseLevel"}

func (s *Server) mSessionsPatch(ctx context.Context, cl *call) (any, error) {
	var raw map[string]json.RawMessage
	if err := decodeParams(cl.method, cl.params, &raw); err != nil {
		return nil, err
	}
	var key string
	if v, ok := raw["key"]; !ok || json.Unmarshal(v, &key) != nil || strings.TrimSpace(key) == "" {
		return nil, invalidParams(cl.method, "key required (a string)")
	}
	p, err := parsePatch(cl.method, raw)
	if err != nil {
		return nil, err
	}
	entry, err := s.eng.PatchR(ctx, key, p)
	if err != nil {
		return nil, err
	}
	row := s.sessionRow(entry)
	model := entry.ModelOverride
	if model == "" {
		model = s.cfg.AgentModel(entry.AgentID)
	}
	return map[string]any{"ok": true, "key": entry.Key, "entry": row,
		"resolved": map[string]any{"modelProvider": providerOf(model), "model": model}}, nil
}

// parsePatch reads the patch fields; null clears a field.
func parsePatch(method string, raw map[string]json.RawMessage) (engine.PatchParams, error) {
	var p engine.PatchParams
	names := make([]string, 0, len(raw))
	for k := range raw {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, name := range names {
		if name == "key" {
			continue
		}
		if !slices.Contains(patchFields, name) {
			return p, invalidParams(method, "%s is not supported by switchboard (supported: %s)", name, strings.Join(patchFields, ", "))
		}
		v := strings.TrimSpace(string(raw[name]))
		val := ""
		if v != "null" {
			if err := json.Unmarshal(raw[name], &val); err != nil {
				return p, invalidParams(method, "%s must be a string or null", name)
			}
		}
		switch name {
		case "label":
			p.Label = &val
		case "sendPolicy":
			switch val {
			case domain.SendPolicyAllow, domain.SendPolicyDeny:
			case "", "inherit":
				// engine.Patch documents "" as clearing but refuses it;
				// "inherit" is the spelling it accepts.
				val = "inherit"
			default:
				return p, domain.Invalid(`invalid sendPolicy (use "allow"|"deny")`)
			}
			p.SendPolicy = &val
		case "model":
			p.Model = &val
		case "thinkingLevel":
			p.ThinkingLevel = &val
		case "verboseLevel":
			p.VerboseLevel = &val
		}
	}
	return p, nil
}

type keyParams struct {
	Key string `json:"key"`
}

func (s *Server) mSessionsReset(ctx context.Context, cl *call) (any, error) {
	var p keyParams
	if err := decodeParams(cl.method, cl.params, &p); err != nil {
		return nil, err
	}
	if err := requireString(cl.method, "key", p.Key, 0); err != nil {
		return nil, err
	}
	entry, err := s.eng.ResetR(ctx, p.Key)
	if err != nil {
		return nil, err
	}
	return map[string]any{"ok": true, "key": entry.Key, "entry": s.sessionRow(entry)}, nil
}

func (s *Server) mSessionsDelete(ctx context.Context, cl *call) (any, error) {
	var p keyParams
	if err := decodeParams(cl.method, cl.params, &p); err != nil {
		return nil, err
	}
	if err := requireString(cl.method, "key", p.Key, 0); err != nil {
		return nil, err
	}
	key, err := s.eng.CanonicalKey(ctx, p.Key)
	if err != nil {
		return nil, err
	}
	if err := s.eng.DeleteR(ctx, key); err != nil {
		return nil, err
	}
	return map[string]any{"ok": true, "key": key, "deleted": true, "archived": []string{}}, nil
}

// mSessionsSpawn is sessions_spawn for operators: the tool's parameters
// plus requesterSessionKey (default: the default agent's main session).
func (s *Server) mSessionsSpawn(ctx context.Context, cl *call) (any, error) {
	var raw map[string]json.RawMessage
	if err := decodeParams(cl.method, cl.params, &raw); err != nil {
		return nil, err
	}
	var requester string
	if v, ok := raw["requesterSessionKey"]; ok {
		if err := json.Unmarshal(v, &requester); err != nil {
			return nil, invalidParams(cl.method, "requesterSessionKey must be a string")
		}
		delete(raw, "requesterSessionKey")
	}
	args, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	out := s.eng.CallTool(ctx, cl.c.grant.principal(requester), engine.ToolSessionsSpawn, args)
	if out.IsError {
		return nil, toolError(out)
	}
	return out.Payload, nil
}

// toolError turns an error outcome of a tool into a coded error.
func toolError(out engine.ToolOutcome) error {
	var p struct {
		Status string `json:"status"`
		Error  string `json:"error"`
	}
	_ = json.Unmarshal(out.JSON(), &p)
	code := domain.CodeInvalid
	if p.Status == "forbidden" {
		code = domain.CodeForbidden
	}
	if p.Error == "" {
		p.Error = "tool call failed"
	}
	return domain.Errorf(code, "%s", p.Error)
}
