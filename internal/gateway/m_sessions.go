package gateway

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/sessionkey"
)

type sessionsListParams struct {
	Limit         *api.Int `json:"limit"`
	ActiveMinutes *api.Int `json:"activeMinutes"`
	Label         string   `json:"label"`
	SpawnedBy     string   `json:"spawnedBy"`
	AgentID       string   `json:"agentId"`
	Search        string   `json:"search"`
	Offset        *api.Int `json:"offset"`
	// includeLastMessage / includeDerivedTitles add lastMessagePreview /
	// derivedTitle to each row (api.ListRequest).
	IncludeLastMessage   bool `json:"includeLastMessage"`
	IncludeDerivedTitles bool `json:"includeDerivedTitles"`
	// includeGlobal and includeUnknown are accepted and ignored.
}

// mSessionsList lists the sessions the caller may see, in OpenClaw's row
// shape with canonical keys. OpenClaw returns every row when no limit is
// given; switchboard returns up to api.SessionsListLimit's default for an
// operator (a requester is clamped to the tool's limit by the engine).
func (s *Server) mSessionsList(ctx context.Context, cl *call) (any, error) {
	var p sessionsListParams
	if err := decodeParams(cl.method, cl.params, &p); err != nil {
		return nil, err
	}
	pr := cl.principal("")
	defaults, err := s.eng.Defaults(ctx, pr)
	if err != nil {
		return nil, err
	}
	keys := keyPrinter{main: defaults.MainSessionKey}
	req := api.ListRequest{Limit: int(api.SessionsListLimit.Default), Label: strings.TrimSpace(p.Label), Search: strings.TrimSpace(p.Search),
		AgentID: strings.ToLower(strings.TrimSpace(p.AgentID)), SpawnedBy: keys.key(strings.TrimSpace(p.SpawnedBy)),
		IncludeLastMessage: p.IncludeLastMessage, IncludeDerivedTitles: p.IncludeDerivedTitles}
	if p.Limit != nil {
		n, err := api.SessionsListLimit.Apply(int64(*p.Limit))
		if err != nil {
			return nil, invalidParams(cl.method, "%s", domain.ErrorMessage(err))
		}
		req.Limit = int(n)
	}
	if p.ActiveMinutes != nil {
		n, err := api.ListActiveMinutes.Apply(int64(*p.ActiveMinutes))
		if err != nil {
			return nil, invalidParams(cl.method, "%s", domain.ErrorMessage(err))
		}
		req.ActiveMinutes = int(n)
	}
	if p.Offset != nil {
		n, err := api.ListOffset.Apply(int64(*p.Offset))
		if err != nil {
			return nil, invalidParams(cl.method, "%s", domain.ErrorMessage(err))
		}
		req.Offset = int(n)
	}
	res, err := observe(s.metrics, "list_sessions", func() (api.ListResult, error) {
		return s.eng.ListSessions(ctx, pr, req)
	})
	if err != nil {
		return nil, err
	}
	keys.rows(res.Sessions)
	out := make([]SessionRow, len(res.Sessions))
	for i, r := range res.Sessions {
		out[i] = listRow(r)
	}
	model := defaults.Model
	payload := map[string]any{
		"ts":      s.now().UnixMilli(),
		"path":    storePath(defaults),
		"count":   len(out),
		"hasMore": res.HasMore,
		"defaults": map[string]any{
			"modelProvider": providerOf(model),
			"model":         model,
			"contextTokens": nil,
		},
		"sessions": out,
	}
	if res.NextOffset != nil {
		payload["nextOffset"] = *res.NextOffset
	}
	return payload, nil
}

// storePath is the `path` of sessions.list: where transcripts of an agent
// live, with the agent as `{agentId}` as OpenClaw clients expect (they
// resolve `<dir of path>/<sessionId>.jsonl`).
func storePath(d api.Defaults) string {
	if d.TranscriptPath == "" {
		return "(multiple)"
	}
	return filepath.Join(d.TranscriptPath, "sessions.json")
}

type sessionsResolveParams struct {
	Key       string `json:"key"`
	SessionID string `json:"sessionId"`
	Label     string `json:"label"`
	AgentID   string `json:"agentId"`
}

// mSessionsResolve finds a session; one the caller may not see does not
// exist for it.
func (s *Server) mSessionsResolve(ctx context.Context, cl *call) (any, error) {
	var p sessionsResolveParams
	if err := decodeParams(cl.method, cl.params, &p); err != nil {
		return nil, err
	}
	res, err := s.eng.Resolve(ctx, cl.principal(""), api.ResolveRequest{Key: p.Key, SessionID: p.SessionID, Label: p.Label, AgentID: p.AgentID})
	if err != nil {
		return nil, err
	}
	// OpenClaw's answer names the session's agent too.
	out := map[string]any{"ok": true, "key": res.Key}
	if k, err := sessionkey.Parse(res.Key); err == nil {
		out["agentId"] = k.AgentID
	}
	return out, nil
}

// entryRow is the row of a session the caller just changed, read back
// through api.Service.GetSession (which knows the agent's default model);
// when that read fails, the row is built from the changed session alone.
func (s *Server) entryRow(ctx context.Context, pr api.Principal, entry domain.Session) SessionRow {
	r, err := s.eng.GetSession(ctx, pr, entry.Key)
	if err != nil {
		return sessionRow(entry)
	}
	s.printer(ctx, pr).row(&r)
	return listRow(r)
}

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
	p.Key = key
	pr := cl.principal("")
	entry, err := s.eng.Patch(ctx, pr, p)
	if err != nil {
		return nil, err
	}
	row := s.entryRow(ctx, pr, entry)
	model := entry.ModelOverride
	if model == "" {
		model = row.Model
	}
	return map[string]any{"ok": true, "key": entry.Key, "entry": row,
		"resolved": map[string]any{"modelProvider": providerOf(model), "model": model}}, nil
}

// parsePatch reads the patch fields, each in its three states (absent,
// null, a string); the engine checks the values.
func parsePatch(method string, raw map[string]json.RawMessage) (api.PatchRequest, error) {
	var p api.PatchRequest
	names := make([]string, 0, len(raw))
	for k := range raw {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, name := range names {
		if name == "key" {
			continue
		}
		field := p.Field(name)
		if field == nil {
			return p, invalidParams(method, "%s is not supported by switchboard (supported: %s)", name, strings.Join(api.PatchFields, ", "))
		}
		if strings.TrimSpace(string(raw[name])) == "null" {
			*field = api.SetNull()
			continue
		}
		var val string
		if err := json.Unmarshal(raw[name], &val); err != nil {
			return p, invalidParams(method, "%s must be a string or null", name)
		}
		*field = api.SetValue(val)
	}
	return p, nil
}

type keyParams struct {
	Key string `json:"key"`
}

// resetParams are sessions.reset's: OpenClaw's reason is "new" or "reset"
// (both start a new transcript here); another value is refused, as its
// schema refuses it.
type resetParams struct {
	Key    string `json:"key"`
	Reason string `json:"reason"`
}

func (s *Server) mSessionsReset(ctx context.Context, cl *call) (any, error) {
	var p resetParams
	if err := decodeParams(cl.method, cl.params, &p); err != nil {
		return nil, err
	}
	if err := requireString(cl.method, "key", p.Key); err != nil {
		return nil, err
	}
	if p.Reason != "" && p.Reason != "new" && p.Reason != "reset" {
		return nil, invalidParams(cl.method, "reason must be one of new|reset (got %q)", p.Reason)
	}
	pr := cl.principal("")
	entry, err := s.eng.Reset(ctx, pr, api.ResetRequest{Key: p.Key})
	if err != nil {
		return nil, err
	}
	return map[string]any{"ok": true, "key": entry.Key, "entry": s.entryRow(ctx, pr, entry)}, nil
}

func (s *Server) mSessionsDelete(ctx context.Context, cl *call) (any, error) {
	var p keyParams
	if err := decodeParams(cl.method, cl.params, &p); err != nil {
		return nil, err
	}
	if err := requireString(cl.method, "key", p.Key); err != nil {
		return nil, err
	}
	pr := cl.principal("")
	res, err := s.eng.Delete(ctx, pr, api.DeleteRequest{Key: p.Key})
	if err != nil {
		return nil, err
	}
	return map[string]any{"ok": true, "key": s.canonical(ctx, pr, res.Key), "deleted": res.Deleted, "archived": []string{}}, nil
}

// mSessionsSpawn is sessions_spawn with the tool's parameters plus
// requesterSessionKey (default: the caller's own rights; a bound token
// may only name its own session).
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
	out := s.eng.CallTool(ctx, cl.principal(requester), api.ToolSessionsSpawn, args)
	if out.IsError {
		return nil, toolError(out)
	}
	return out.Payload, nil
}

// toolError turns an error outcome of a tool into a coded error.
func toolError(out api.ToolOutcome) error {
	var p struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Code   string `json:"code"`
	}
	_ = json.Unmarshal(out.JSON(), &p)
	code := domain.CodeInvalid
	switch {
	case p.Code == domain.CodeUnavailable:
		// A transient failure (full disk): retryable, never "invalid".
		code = domain.CodeUnavailable
	case p.Status == "forbidden":
		code = domain.CodeForbidden
	case p.Error == api.ErrIdempotencyConflict:
		code = domain.CodeConflict
	}
	if p.Error == "" {
		p.Error = "tool call failed"
	}
	return domain.Errorf(code, "%s", p.Error)
}
