package gateway

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/jsonerr"
)

// readBody reads a JSON request body of at most MaxPayload bytes into dst.
// An empty body decodes as {}. Unknown fields are errors.
func (s *Server) readBody(r *http.Request, dst any) error {
	b, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, s.opts.MaxPayload))
	if err != nil {
		return err
	}
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		b = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return domain.Invalid("invalid request body: %s", jsonerr.Describe("", b, err))
	}
	return nil
}

// queryInt reads an optional integer query parameter of at least min.
func queryInt(r *http.Request, name string, min int64) (*int64, error) {
	v := strings.TrimSpace(r.URL.Query().Get(name))
	if v == "" {
		return nil, nil
	}
	n, err := api.ParseWhole(v)
	if err != nil {
		return nil, domain.Invalid("invalid query parameter %s: want a whole number (got %q)", name, v)
	}
	if n < min {
		return nil, domain.Invalid("invalid query parameter %s: must be at least %d (got %d)", name, min, n)
	}
	return &n, nil
}

// queryBool reads an optional boolean query parameter.
func queryBool(r *http.Request, name string) (bool, error) {
	v := strings.TrimSpace(r.URL.Query().Get(name))
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, domain.Invalid("invalid query parameter %s: want true or false (got %q)", name, v)
	}
	return b, nil
}

// queryList reads a comma-separated query parameter.
func queryList(r *http.Request, name string) []string {
	var out []string
	for _, v := range r.URL.Query()[name] {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// queryDuration reads a wait duration: Go syntax ("30s", "2m") or seconds.
func queryDuration(r *http.Request, name string) (time.Duration, bool, error) {
	v := strings.TrimSpace(r.URL.Query().Get(name))
	if v == "" {
		return 0, false, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		n, err2 := strconv.ParseFloat(v, 64)
		if err2 != nil || math.IsNaN(n) {
			return 0, false, domain.Invalid("invalid query parameter %s: want a duration such as 30s (got %q)", name, v)
		}
		if n < 0 {
			return 0, false, domain.Invalid("invalid query parameter %s: must not be negative", name)
		}
		// Clamp in float seconds: a huge number (1e308) would overflow Duration.
		d = time.Duration(min(n, float64(api.WaitTimeout.Max)) * float64(time.Second))
	}
	if d < 0 {
		return 0, false, domain.Invalid("invalid query parameter %s: must not be negative", name)
	}
	return min(d, time.Duration(api.WaitTimeout.Max)*time.Second), true, nil
}

// queryLimited reads an optional integer query parameter within an api
// limit (clamped or refused as the limit says; absent is its default).
func queryLimited(r *http.Request, name string, l api.Limit) (int, error) {
	n, err := queryInt(r, name, math.MinInt64)
	if err != nil || n == nil {
		return int(l.Default), err
	}
	v, err := l.Apply(*n)
	if err != nil {
		return 0, domain.Invalid("invalid query parameter %s: %s", name, domain.ErrorMessage(err))
	}
	return int(v), nil
}

// as is the requester a request names (`?as=`); "" = the caller's own
// rights.
func as(r *http.Request) string { return r.URL.Query().Get("as") }

// apiListSessions lists the sessions the caller may see (canonical keys).
func (s *Server) apiListSessions(r *http.Request, g grant) (any, error) {
	p := g.principal(as(r))
	req, err := s.listQuery(r, p)
	if err != nil {
		return nil, err
	}
	res, err := s.eng.ListSessions(r.Context(), p, req)
	if err != nil {
		return nil, err
	}
	s.printer(r.Context(), p).rows(res.Sessions)
	return res, nil
}

// listQueryParams are the query parameters of GET /api/sessions: the
// sessions_list tool's (kinds, limit, activeMinutes, messageLimit, offset)
// and WS sessions.list's (agentId, search, label, spawnedBy,
// includeLastMessage, includeDerivedTitles; includeGlobal and
// includeUnknown are checked and ignored, as on WS: switchboard has no
// global or unknown sessions) under the same names, plus archived and as.
// listQueryAliases are the older spellings, still read.
var (
	listQueryParams = []string{"kinds", "limit", "activeMinutes", "messageLimit", "offset", "agentId", "search", "label",
		"spawnedBy", "includeLastMessage", "includeDerivedTitles", "includeGlobal", "includeUnknown", "archived", "as"}
	listQueryAliases = map[string]string{"messages": "messageLimit", "agent": "agentId"}
)

// listQuery reads GET /api/sessions' query into the api.ListRequest every
// list surface fills. An unknown parameter, a malformed value or a name
// given with its alias is a 400 naming the parameter.
func (s *Server) listQuery(r *http.Request, p api.Principal) (api.ListRequest, error) {
	q := r.URL.Query()
	for name := range q {
		if slices.Contains(listQueryParams, name) {
			continue
		}
		canon, ok := listQueryAliases[name]
		if !ok {
			return api.ListRequest{}, domain.Invalid("invalid query parameter %s: unknown (accepted: %s)", name, strings.Join(listQueryParams, ", "))
		}
		if q.Has(canon) {
			return api.ListRequest{}, domain.Invalid("invalid query parameter %s: give %s or its alias %s, not both", name, canon, name)
		}
		q[canon] = q[name]
	}
	r = r.Clone(r.Context())
	r.URL.RawQuery = q.Encode()
	var req api.ListRequest
	var err error
	if req.Limit, err = queryLimited(r, "limit", api.SessionsListLimit); err != nil {
		return req, err
	}
	if req.ActiveMinutes, err = queryLimited(r, "activeMinutes", api.ListActiveMinutes); err != nil {
		return req, err
	}
	if req.MessageLimit, err = queryLimited(r, "messageLimit", api.ListMessageLimit); err != nil {
		return req, err
	}
	if req.Offset, err = queryLimited(r, "offset", api.ListOffset); err != nil {
		return req, err
	}
	req.Kinds = queryList(r, "kinds")
	if len(req.Kinds) > int(api.ListKinds.Max) {
		return req, domain.Invalid("invalid query parameter kinds: at most %d kinds (got %d)", api.ListKinds.Max, len(req.Kinds))
	}
	for _, k := range req.Kinds {
		if !slices.Contains(sessionKinds, k) {
			return req, domain.Invalid("invalid query parameter kinds: unknown kind %q (use %s)", k, strings.Join(sessionKinds, ", "))
		}
	}
	req.AgentID = strings.ToLower(strings.TrimSpace(q.Get("agentId")))
	req.Search, req.Label = strings.TrimSpace(q.Get("search")), strings.TrimSpace(q.Get("label"))
	req.SpawnedBy = s.canonical(r.Context(), p, strings.TrimSpace(q.Get("spawnedBy")))
	if req.IncludeArchived, err = queryBool(r, "archived"); err != nil {
		return req, err
	}
	if req.IncludeLastMessage, err = queryBool(r, "includeLastMessage"); err != nil {
		return req, err
	}
	if req.IncludeDerivedTitles, err = queryBool(r, "includeDerivedTitles"); err != nil {
		return req, err
	}
	for _, name := range []string{"includeGlobal", "includeUnknown"} {
		if _, err = queryBool(r, name); err != nil {
			return req, err
		}
	}
	return req, nil
}

// sessionKinds are the kinds sessions_list filters on.
var sessionKinds = []string{domain.KindMain, domain.KindGroup, domain.KindCron, domain.KindHook, domain.KindNode, domain.KindOther}

func (s *Server) apiHistory(r *http.Request, g grant) (any, error) {
	p := g.principal(as(r))
	req := api.HistoryRequest{SessionKey: r.PathValue("key")}
	var err error
	if req.Limit, err = queryLimited(r, "limit", api.HistoryLimit); err != nil {
		return nil, err
	}
	if n, err := queryInt(r, "before", 1); err != nil {
		return nil, err
	} else if n != nil {
		req.BeforeSeq = *n
	}
	if req.Offset, err = queryLimited(r, "offset", api.HistoryOffset); err != nil {
		return nil, err
	}
	req.BeforeMessageID = r.URL.Query().Get("beforeMessageId")
	if req.IncludeTools, err = queryBool(r, "includeTools"); err != nil {
		return nil, err
	}
	if req.Raw, err = queryBool(r, "raw"); err != nil {
		return nil, err
	}
	if req.Raw && !p.IsOperator() {
		return nil, domain.Invalid("raw history is only for operators (drop as= or raw=)")
	}
	res, err := s.eng.History(r.Context(), p, req)
	if err != nil {
		return nil, err
	}
	res.SessionKey = s.canonical(r.Context(), p, res.SessionKey)
	return res, nil
}

// openclawHistory serves OpenClaw's `GET /sessions/{sessionKey}/history?
// limit=&cursor=`: the history of an existing session as the caller may
// read it, `cursor` being the nextCursor of the previous (newer) page. A
// session that does not exist is 404 {ok:false, error:{type:"not_found"}}
// (the /api route answers messages: [] for a well-formed key instead).
// Streaming (Accept: text/event-stream) is not offered: use the WS
// sessions.messages.subscribe.
func (s *Server) openclawHistory(r *http.Request, g grant) (any, error) {
	p := g.principal(as(r))
	if _, err := s.eng.GetSession(r.Context(), p, r.PathValue("key")); err != nil {
		return nil, err
	}
	req := api.HistoryRequest{SessionKey: r.PathValue("key"), BeforeMessageID: r.URL.Query().Get("cursor")}
	var err error
	if req.Limit, err = queryLimited(r, "limit", api.HistoryLimit); err != nil {
		return nil, err
	}
	res, err := s.eng.History(r.Context(), p, req)
	if err != nil {
		return nil, err
	}
	res.SessionKey = s.canonical(r.Context(), p, res.SessionKey)
	type page struct {
		api.HistoryResult
		NextCursor string `json:"nextCursor,omitempty"`
	}
	return page{HistoryResult: res, NextCursor: res.NextBeforeMessageID}, nil
}

type sendBody struct {
	Message        string   `json:"message"`
	TimeoutSeconds *api.Int `json:"timeoutSeconds"`
	IdempotencyKey string   `json:"idempotencyKey"`
	As             string   `json:"as"`
	Mode           string   `json:"mode"`
}

func (s *Server) apiSend(r *http.Request, g grant) (any, error) {
	var b sendBody
	if err := s.readBody(r, &b); err != nil {
		return nil, err
	}
	req := api.SendRequest{SessionKey: r.PathValue("key"), Message: b.Message, IdempotencyKey: b.IdempotencyKey, Mode: b.Mode}
	if b.TimeoutSeconds != nil {
		n, err := api.SendTimeout.Apply(int64(*b.TimeoutSeconds))
		if err != nil {
			return nil, domain.Invalid("invalid request body: %s", domain.ErrorMessage(err))
		}
		t := int(n)
		req.TimeoutSeconds = &t
	}
	requester, err := requesterOf(r, b.As)
	if err != nil {
		return nil, err
	}
	p := g.principal(requester)
	res, err := s.eng.Send(r.Context(), p, req)
	if err != nil {
		return nil, err
	}
	res.SessionKey = s.canonical(r.Context(), p, res.SessionKey)
	return res, nil
}

type chatBody struct {
	Message string `json:"message"`
	// IdempotencyKey is optional, but not empty (idempotencyKey()).
	IdempotencyKey *string  `json:"idempotencyKey"`
	Model          string   `json:"model"`
	Thinking       string   `json:"thinking"`
	TimeoutSeconds *api.Int `json:"timeoutSeconds"`
	Channel        string   `json:"channel"`
	SenderID       string   `json:"senderId"`
	// To, AccountID and ThreadID are the delivery hints WS `agent` takes:
	// recorded on the session as deliveryContext, lastTo, lastAccountId.
	To        string          `json:"to"`
	AccountID string          `json:"accountId"`
	ThreadID  json.RawMessage `json:"threadId"`
	// Deliver, BestEffortDeliver, ReplyChannel and ReplyTo are WS
	// `agent`'s: deliver the reply to the session's channel.
	Deliver           bool   `json:"deliver"`
	BestEffortDeliver bool   `json:"bestEffortDeliver"`
	ReplyChannel      string `json:"replyChannel"`
	ReplyTo           string `json:"replyTo"`
	// Attachments are OpenClaw's inline files, as WS chat.send's (chatFiles).
	Attachments json.RawMessage `json:"attachments"`
}

// ChatResponse is the result of POST /api/sessions/{key}/chat: the run the
// message started, or the answer of a command (/new, /stop, …).
type ChatResponse struct {
	Run        *domain.Run `json:"run,omitempty"`
	SessionKey string      `json:"sessionKey"`
	Command    string      `json:"command,omitempty"`
	Reply      string      `json:"reply,omitempty"`
	Created    bool        `json:"created"`
}

// apiChat posts a user message as the caller (its idempotency key is
// scoped to the caller by the engine; a reuse with other parameters is
// 409). `?wait=` waits for the run.
func (s *Server) apiChat(r *http.Request, g grant) (any, error) {
	var b chatBody
	if err := s.readBody(r, &b); err != nil {
		return nil, err
	}
	files, err := s.chatFiles("chat", b.Attachments)
	if err != nil {
		return nil, err
	}
	idem, err := idempotencyKey("chat", b.IdempotencyKey)
	if err != nil {
		return nil, err
	}
	timeout, err := chatTimeout("chat", "timeoutSeconds", b.TimeoutSeconds.Int64(), 1000)
	if err != nil {
		return nil, err
	}
	wait, waiting, err := queryDuration(r, "wait")
	if err != nil {
		return nil, err
	}
	thread, err := threadID("chat", "threadId", b.ThreadID)
	if err != nil {
		return nil, err
	}
	p := g.principal(as(r))
	res, err := s.eng.Chat(r.Context(), p, api.ChatRequest{SessionKey: r.PathValue("key"), Message: b.Message, Attachments: files,
		Channel: b.Channel, SenderID: b.SenderID, IdempotencyKey: idem, Model: b.Model,
		To: b.To, AccountID: b.AccountID, ThreadID: thread,
		Deliver: b.Deliver, BestEffortDeliver: b.BestEffortDeliver, ReplyChannel: b.ReplyChannel, ReplyTo: b.ReplyTo,
		Thinking: b.Thinking, TimeoutSeconds: timeout})
	if err != nil {
		return nil, err
	}
	out := ChatResponse{SessionKey: s.canonical(r.Context(), p, res.SessionKey), Command: res.Command, Reply: res.Reply, Created: res.Created}
	if res.Command == "" {
		run := res.Run
		if waiting {
			if run, err = s.eng.WaitRun(r.Context(), p, api.WaitRequest{RunID: run.ID, Timeout: wait}); err != nil {
				return nil, err
			}
		}
		out.Run = &run
	}
	return out, nil
}

func (s *Server) apiPatch(r *http.Request, g grant) (any, error) {
	var raw map[string]json.RawMessage
	if err := s.readBody(r, &raw); err != nil {
		return nil, err
	}
	if _, ok := raw["key"]; ok {
		return nil, domain.Invalid("invalid patch params: the key is in the URL, not the body")
	}
	p, err := parsePatch("patch", raw)
	if err != nil {
		return nil, err
	}
	p.Key = r.PathValue("key")
	return s.eng.Patch(r.Context(), g.principal(as(r)), p)
}

func (s *Server) apiReset(r *http.Request, g grant) (any, error) {
	return s.eng.Reset(r.Context(), g.principal(as(r)), api.ResetRequest{Key: r.PathValue("key")})
}

func (s *Server) apiDelete(r *http.Request, g grant) (any, error) {
	p := g.principal(as(r))
	res, err := s.eng.Delete(r.Context(), p, api.DeleteRequest{Key: r.PathValue("key")})
	if err != nil {
		return nil, err
	}
	return map[string]any{"ok": true, "key": s.canonical(r.Context(), p, res.Key), "deleted": res.Deleted}, nil
}

// apiSpawn is sessions_spawn over HTTP: the body holds the tool's
// parameters plus `as` (the requester session; none = the caller's own
// rights).
func (s *Server) apiSpawn(r *http.Request, g grant) (any, error) {
	b, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, s.opts.MaxPayload))
	if err != nil {
		return nil, err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, domain.Invalid("invalid request body: want a JSON object of sessions_spawn parameters: %s", jsonerr.Describe("", b, err))
	}
	var as string
	if v, ok := raw["as"]; ok {
		if err := json.Unmarshal(v, &as); err != nil {
			return nil, domain.Invalid("invalid request body: as must be a string")
		}
		delete(raw, "as")
	}
	if as, err = requesterOf(r, as); err != nil {
		return nil, err
	}
	args, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	out := s.eng.CallTool(r.Context(), g.principal(as), api.ToolSessionsSpawn, args)
	if out.IsError {
		return nil, toolError(out)
	}
	return out.Payload, nil
}

// runStatuses are the statuses GET /api/runs filters on.
var runStatuses = []domain.RunStatus{domain.RunQueued, domain.RunRunning, domain.RunOK, domain.RunError, domain.RunTimeout, domain.RunCancelled}

// apiListRuns lists the runs of sessions the caller may see.
func (s *Server) apiListRuns(r *http.Request, g grant) (any, error) {
	q := api.RunsRequest{Statuses: domain.Typed[domain.RunStatus](queryList(r, "status")), Kinds: domain.Typed[domain.RunKind](queryList(r, "kind")),
		ParentRunID: r.URL.Query().Get("parent"), SessionKey: r.URL.Query().Get("session")}
	var err error
	if q.Limit, err = queryLimited(r, "limit", api.RunsListLimit); err != nil {
		return nil, err
	}
	for _, st := range q.Statuses {
		if !slices.Contains(runStatuses, st) {
			return nil, domain.Invalid("invalid query parameter status: %q is not a run status (%s)", st, strings.Join(domain.Strings(runStatuses), "|"))
		}
	}
	runs, err := s.eng.ListRuns(r.Context(), g.principal(as(r)), q)
	if err != nil {
		return nil, err
	}
	if runs == nil {
		runs = []domain.Run{}
	}
	return map[string]any{"runs": runs}, nil
}

func (s *Server) apiRun(r *http.Request, g grant) (any, error) {
	wait, waiting, err := queryDuration(r, "wait")
	if err != nil {
		return nil, err
	}
	p := g.principal(as(r))
	// A chat.send run may be named by its idempotencyKey (runaliases.go).
	asked := r.PathValue("id")
	var run domain.Run
	if waiting {
		run, err = s.eng.WaitRun(r.Context(), p, api.WaitRequest{RunID: s.aliases.run(asked), Timeout: wait})
	} else {
		run, err = s.eng.GetRun(r.Context(), p, s.aliases.run(asked))
	}
	if err != nil {
		return nil, err
	}
	run.ID = asked
	return run, nil
}

// apiCancelRun answers api.CancelResult: the run with its final status
// and whether this call cancelled it.
func (s *Server) apiCancelRun(r *http.Request, g grant) (any, error) {
	asked := r.PathValue("id")
	res, err := s.eng.CancelRun(r.Context(), g.principal(as(r)), s.aliases.run(asked))
	if err != nil {
		return nil, err
	}
	res.ID = asked
	return res, nil
}

func (s *Server) apiAgents(r *http.Request, g grant) (any, error) {
	return s.eng.AgentsList(r.Context(), g.principal(as(r)))
}

// ToolResponse is the result of POST /api/tools/{name}.
type ToolResponse struct {
	IsError bool `json:"isError"`
	Result  any  `json:"result"`
}

// apiTool calls a session tool; the body is the tool's arguments and the
// requester comes from the X-Switchboard-As header or the `as` query.
// Like MCP and tools.invoke, everything the tool decides (a missing
// scope included) is an isError result; a tool that does not exist is a
// 400.
func (s *Server) apiTool(r *http.Request, g grant) (any, error) {
	name := r.PathValue("name")
	if _, ok := api.ToolOp(name, ""); !ok {
		return nil, domain.Invalid("tool not available: %s", name)
	}
	args, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, s.opts.MaxPayload))
	if err != nil {
		return nil, err
	}
	requester := r.Header.Get(HeaderAs)
	if requester == "" {
		requester = as(r)
	}
	out := s.eng.CallTool(r.Context(), g.toolPrincipal(requester), name, args)
	return ToolResponse{IsError: out.IsError, Result: out.Payload}, nil
}
