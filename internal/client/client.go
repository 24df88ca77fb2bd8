// Package client implements api.Service against a running switchboard
// gateway's HTTP API. The CLI holds it instead of the engine when a gateway
// owns the state directory, and `switchboard mcp` forwards tool calls with
// it, so every command gets the same typed results on both paths.
//
// A call sends the principal's requester (api.Principal.Requester) as the
// `as` parameter and the X-Switchboard-As header; the gateway decides the
// rest of the principal (name, scopes, bound session) from the token.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// maxResponse bounds a response body (the gateway's maxPayload).
const maxResponse = 25 << 20

var _ api.Service = (*Client)(nil)

// Client calls a gateway. It is safe for concurrent use.
type Client struct {
	base   *url.URL
	err    error // a bad base URL, reported by every call
	token  string
	hc     *http.Client
	header string
}

// New returns a client for the gateway at baseURL (http://host:port). An
// empty token sends no Authorization header; a nil hc uses a client
// without a timeout (waits are bounded by their contexts).
func New(baseURL, token string, hc *http.Client) *Client {
	if hc == nil {
		hc = &http.Client{}
	}
	c := &Client{token: token, hc: hc}
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	switch {
	case err != nil:
		c.err = fmt.Errorf("client: gateway URL %q: %w", baseURL, err)
	case u.Scheme != "http" && u.Scheme != "https":
		c.err = fmt.Errorf("client: gateway URL %q: want http:// or https://", baseURL)
	case u.Host == "":
		c.err = fmt.Errorf("client: gateway URL %q has no host", baseURL)
	}
	c.base = u
	return c
}

// BaseURL returns the gateway URL the client calls.
func (c *Client) BaseURL() string {
	if c.base == nil {
		return ""
	}
	return c.base.String()
}

// Error is a failure the gateway reported. It unwraps to a *domain.Error
// with the same code and message, so domain.ErrorCode and
// domain.ErrorMessage work on it as on in-process errors.
type Error struct {
	StatusCode int
	Code       string
	Message    string
}

func (e *Error) Error() string { return e.Message }

// Unwrap returns the error as a domain error.
func (e *Error) Unwrap() error { return &domain.Error{Code: e.Code, Message: e.Message} }

// do sends a request and decodes a JSON answer into out (when not nil).
func (c *Client) do(ctx context.Context, method, path string, query url.Values, header http.Header, body any, out any) error {
	if c.err != nil {
		return c.err
	}
	u := *c.base
	unescaped, err := url.PathUnescape(path)
	if err != nil {
		return fmt.Errorf("client: path %q: %w", path, err)
	}
	u.Path = c.base.Path + unescaped
	u.RawPath = c.base.EscapedPath() + path
	u.RawQuery = query.Encode()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case json.RawMessage:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			return fmt.Errorf("client: encode %s %s: %w", method, path, err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return fmt.Errorf("client: %s %s: %w", method, path, err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return Unreachable(ctx, c.base.Host, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		return fmt.Errorf("client: read %s %s: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		return decodeError(resp.StatusCode, data)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("client: decode %s %s: %w", method, path, err)
	}
	return nil
}

// apiPath joins escaped path segments under /api (session keys and run
// ids may hold characters that need escaping).
func apiPath(segs ...string) string {
	var b strings.Builder
	b.WriteString("/api")
	for _, s := range segs {
		b.WriteByte('/')
		b.WriteString(url.PathEscape(s))
	}
	return b.String()
}

// Unreachable is the error of a request that got no answer from the
// gateway at host: CodeUnavailable, since the caller did nothing wrong and
// may retry once the gateway is up, with the transport's error as its
// cause. A request the caller's own context ended keeps that error.
func Unreachable(ctx context.Context, host string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("client: gateway %s: %w", host, err)
	}
	return &domain.Error{Code: domain.CodeUnavailable, Message: "gateway " + host + " does not answer", Err: err}
}

// ResponseError is the error of a gateway's answer with a status other
// than 2xx: the code and message of its JSON error body, else the code of
// the status.
func ResponseError(status int, data []byte) error { return decodeError(status, data) }

// decodeError turns an error response into *Error.
func decodeError(status int, data []byte) error {
	var body struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(data, &body) != nil || body.Error.Message == "" {
		msg := strings.TrimSpace(string(data))
		if len(msg) > 200 {
			msg = msg[:200] + "…"
		}
		return &Error{StatusCode: status, Code: codeForStatus(status), Message: fmt.Sprintf("gateway answered %d %s: %s", status, http.StatusText(status), msg)}
	}
	code := body.Error.Code
	if code == "unauthorized" {
		code = domain.CodeForbidden
	}
	return &Error{StatusCode: status, Code: code, Message: body.Error.Message}
}

// codeForStatus guesses an error code from a bare HTTP status.
func codeForStatus(status int) string {
	switch status {
	case http.StatusBadRequest:
		return domain.CodeInvalid
	case http.StatusUnauthorized, http.StatusForbidden:
		return domain.CodeForbidden
	case http.StatusNotFound:
		return domain.CodeNotFound
	case http.StatusConflict:
		return domain.CodeConflict
	case http.StatusServiceUnavailable, http.StatusBadGateway:
		return domain.CodeUnavailable
	case http.StatusGatewayTimeout:
		return domain.CodeTimeout
	}
	return domain.CodeInternal
}

// Health reports whether the gateway accepts connections.
func (c *Client) Health(ctx context.Context) error {
	return c.do(ctx, http.MethodGet, "/healthz", nil, nil, nil, nil)
}

// ErrNoOutboxRoute is the error of Outbox against a gateway that offers no
// GET /api/outbox.
var ErrNoOutboxRoute = errors.New("this gateway has no outbox route (GET /api/outbox): watch deliveries in the web UI, or stop the gateway and run `switchboard outbox list`")

// as returns the requester headers and query of p: the gateway decides
// the rest of the principal from the token.
func as(p api.Principal) (http.Header, url.Values) {
	h, q := http.Header{}, url.Values{}
	if r := p.Requester(); r != "" {
		h.Set(HeaderAs, r)
		q.Set("as", r)
	}
	return h, q
}

// HeaderAs is the header that names the requester session of a call.
const HeaderAs = "X-Switchboard-As"

// InvokeTool calls a session tool as requesterKey (empty: the default
// agent's main session) and returns the gateway's outcome; a failed call
// (the gateway unreachable, the token refused) is an error.
func (c *Client) InvokeTool(ctx context.Context, requesterKey, name string, args json.RawMessage) (api.ToolOutcome, error) {
	if err := need("tool name", name); err != nil {
		return api.ToolOutcome{}, err
	}
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	h, q := as(api.Principal{As: requesterKey})
	var out struct {
		IsError bool            `json:"isError"`
		Result  json.RawMessage `json:"result"`
	}
	if err := c.do(ctx, http.MethodPost, apiPath("tools", name), q, h, args, &out); err != nil {
		return api.ToolOutcome{}, err
	}
	return api.ToolOutcome{Payload: out.Result, IsError: out.IsError}, nil
}

// CallTool calls a session tool as p. A call the gateway did not answer
// with a tool result (unreachable, token refused) is an error outcome with
// status "forbidden" or "error".
func (c *Client) CallTool(ctx context.Context, p api.Principal, name string, args json.RawMessage) api.ToolOutcome {
	out, err := c.InvokeTool(ctx, p.Requester(), name, args)
	if err == nil {
		return out
	}
	status := "error"
	if domain.ErrorCode(err) == domain.CodeForbidden {
		status = "forbidden"
	}
	msg := err.Error()
	var de *domain.Error
	if errors.As(err, &de) {
		msg = de.Message
	}
	code := domain.ErrorCode(err)
	if status == "forbidden" {
		code = "" // the status says it, as in tools.Failure
	}
	return api.ToolOutcome{Payload: api.ErrorPayload{Status: status, Error: msg, Code: code}, IsError: true}
}

// ListSessions lists the sessions p may see.
func (c *Client) ListSessions(ctx context.Context, p api.Principal, req api.ListRequest) (api.ListResult, error) {
	h, q := as(p)
	setInt(q, "limit", req.Limit)
	setInt(q, "activeMinutes", req.ActiveMinutes)
	setInt(q, "messageLimit", req.MessageLimit)
	setNonZero(q, "offset", req.Offset)
	if len(req.Kinds) > 0 {
		q.Set("kinds", strings.Join(req.Kinds, ","))
	}
	setStr(q, "agentId", req.AgentID)
	setStr(q, "search", req.Search)
	setStr(q, "label", req.Label)
	setStr(q, "spawnedBy", req.SpawnedBy)
	if req.IncludeArchived {
		q.Set("archived", "true")
	}
	var out api.ListResult
	err := c.do(ctx, http.MethodGet, apiPath("sessions"), q, h, nil, &out)
	return out, err
}

// History reads a session's transcript as p.
func (c *Client) History(ctx context.Context, p api.Principal, req api.HistoryRequest) (api.HistoryResult, error) {
	if strings.TrimSpace(req.SessionKey) == "" {
		return api.HistoryResult{}, domain.Invalid("sessionKey required")
	}
	h, q := as(p)
	setInt(q, "limit", req.Limit)
	if req.BeforeSeq > 0 {
		q.Set("before", strconv.FormatInt(req.BeforeSeq, 10))
	}
	setNonZero(q, "offset", req.Offset)
	setStr(q, "beforeMessageId", req.BeforeMessageID)
	if req.IncludeTools {
		q.Set("includeTools", "true")
	}
	if req.Raw {
		q.Set("raw", "true")
	}
	var out api.HistoryResult
	err := c.do(ctx, http.MethodGet, apiPath("sessions", req.SessionKey, "history"), q, h, nil, &out)
	return out, err
}

// Send sends an inter-session message as p and waits for the reply
// unless TimeoutSeconds is 0.
func (c *Client) Send(ctx context.Context, p api.Principal, req api.SendRequest) (api.SendResult, error) {
	if strings.TrimSpace(req.SessionKey) == "" {
		return api.SendResult{}, errors.New("client: Send needs a SessionKey (label targeting is tool-only: use CallTool sessions_send)")
	}
	h, _ := as(p)
	body := map[string]any{"message": req.Message}
	if req.TimeoutSeconds != nil {
		body["timeoutSeconds"] = *req.TimeoutSeconds
	}
	if req.IdempotencyKey != "" {
		body["idempotencyKey"] = req.IdempotencyKey
	}
	if req.Mode != "" {
		body["mode"] = req.Mode
	}
	if r := p.Requester(); r != "" {
		body["as"] = r
	}
	var out api.SendResult
	err := c.do(ctx, http.MethodPost, apiPath("sessions", req.SessionKey, "send"), nil, h, body, &out)
	return out, err
}

// chatResponse is the gateway's answer to POST /api/sessions/{key}/chat.
type chatResponse struct {
	Run        *domain.Run `json:"run"`
	SessionKey string      `json:"sessionKey"`
	Command    string      `json:"command"`
	Reply      string      `json:"reply"`
	Created    bool        `json:"created"`
}

// Chat posts a user message into a session (a channel message, webchat
// by default) as p and returns the run it started, or a command's answer.
func (c *Client) Chat(ctx context.Context, p api.Principal, req api.ChatRequest) (api.ChatResult, error) {
	key := req.SessionKey
	if strings.TrimSpace(key) == "" {
		key = "main"
	}
	if req.Kind != "" && req.Kind != domain.RunKindChat {
		return api.ChatResult{}, fmt.Errorf("client: Chat supports run kind %q only (got %q)", domain.RunKindChat, req.Kind)
	}
	if req.ExtraSystem != "" || req.Label != "" {
		return api.ChatResult{}, errors.New("client: Chat cannot carry ExtraSystem or Label over the HTTP API")
	}
	h, q := as(p)
	body := map[string]any{"message": req.Message}
	for k, v := range map[string]string{"idempotencyKey": req.IdempotencyKey, "model": req.Model, "thinking": req.Thinking,
		"channel": req.Channel, "senderId": req.SenderID, "to": req.To, "accountId": req.AccountID, "threadId": req.ThreadID,
		"replyChannel": req.ReplyChannel, "replyTo": req.ReplyTo} {
		if v != "" {
			body[k] = v
		}
	}
	if req.Deliver {
		body["deliver"] = true
	}
	if req.BestEffortDeliver {
		body["bestEffortDeliver"] = true
	}
	if req.TimeoutSeconds > 0 {
		body["timeoutSeconds"] = req.TimeoutSeconds
	}
	var out chatResponse
	if err := c.do(ctx, http.MethodPost, apiPath("sessions", key, "chat"), q, h, body, &out); err != nil {
		return api.ChatResult{}, err
	}
	res := api.ChatResult{SessionKey: out.SessionKey, Command: out.Command, Reply: out.Reply, Created: out.Created}
	if out.Run != nil {
		res.Run = *out.Run
	}
	return res, nil
}

// Spawn starts a sub-agent as p.
func (c *Client) Spawn(ctx context.Context, p api.Principal, req api.SpawnRequest) (api.SpawnResult, error) {
	h, _ := as(p)
	body := map[string]any{"task": req.Task}
	for k, v := range map[string]string{"label": req.Label, "agentId": req.AgentID, "model": req.Model, "thinking": req.Thinking,
		"mode": req.Mode, "cleanup": req.Cleanup, "sandbox": req.Sandbox, "idempotencyKey": req.IdempotencyKey, "as": p.Requester(),
		"context": req.Context} {
		if v != "" {
			body[k] = v
		}
	}
	if req.RunTimeoutSeconds != nil {
		body["runTimeoutSeconds"] = *req.RunTimeoutSeconds
	}
	if req.Thread {
		body["thread"] = true
	}
	if len(req.Attachments) > 0 {
		body["attachments"] = req.Attachments
	}
	if req.MountPath != "" {
		body["attachAs"] = map[string]string{"mountPath": req.MountPath}
	}
	if req.Budget != nil {
		body["budget"] = req.Budget
	}
	var out api.SpawnResult
	err := c.do(ctx, http.MethodPost, apiPath("spawn"), nil, h, body, &out)
	return out, err
}

// AgentsList lists the agents p's requester may spawn under.
func (c *Client) AgentsList(ctx context.Context, p api.Principal) (api.AgentsListResult, error) {
	h, q := as(p)
	var out api.AgentsListResult
	err := c.do(ctx, http.MethodGet, apiPath("agents"), q, h, nil, &out)
	return out, err
}

// Subagents lists or cancels p's requester's sub-agents (the subagents
// tool over POST /api/tools/subagents).
func (c *Client) Subagents(ctx context.Context, p api.Principal, req api.SubagentsRequest) (api.SubagentsResult, error) {
	args, err := json.Marshal(map[string]string{"action": req.Action, "target": req.Target})
	if err != nil {
		return api.SubagentsResult{}, err
	}
	out, err := c.InvokeTool(ctx, p.Requester(), api.ToolSubagents, args)
	if err != nil {
		return api.SubagentsResult{}, err
	}
	raw, _ := out.Payload.(json.RawMessage)
	if out.IsError {
		var e api.ErrorPayload
		_ = json.Unmarshal(raw, &e)
		code := domain.CodeInvalid
		if e.Status == "forbidden" {
			code = domain.CodeForbidden
		}
		return api.SubagentsResult{}, domain.Errorf(code, "%s", orDefault(e.Error, "subagents failed"))
	}
	var res api.SubagentsResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return api.SubagentsResult{}, fmt.Errorf("client: decode subagents: %w", err)
	}
	return res, nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// GetRun returns a run as it stands.
func (c *Client) GetRun(ctx context.Context, p api.Principal, runID string) (domain.Run, error) {
	if err := need("runID", runID); err != nil {
		return domain.Run{}, err
	}
	h, q := as(p)
	var out domain.Run
	err := c.do(ctx, http.MethodGet, apiPath("runs", runID), q, h, nil, &out)
	return out, err
}

// WaitRun waits up to req.Timeout for a run to end and returns it; a run
// that has not ended by then comes back with its current status (check it
// with domain.RunTerminal).
func (c *Client) WaitRun(ctx context.Context, p api.Principal, req api.WaitRequest) (domain.Run, error) {
	if err := need("runID", req.RunID); err != nil {
		return domain.Run{}, err
	}
	h, q := as(p)
	q.Set("wait", req.Timeout.String())
	var out domain.Run
	err := c.do(ctx, http.MethodGet, apiPath("runs", req.RunID), q, h, nil, &out)
	return out, err
}

// CancelRun cancels a run and every run it started, and says whether this
// call cancelled it or it had already ended.
func (c *Client) CancelRun(ctx context.Context, p api.Principal, runID string) (api.CancelResult, error) {
	if err := need("runID", runID); err != nil {
		return api.CancelResult{}, err
	}
	h, q := as(p)
	var out api.CancelResult
	err := c.do(ctx, http.MethodPost, apiPath("runs", runID, "cancel"), q, h, nil, &out)
	return out, err
}

// ListRuns lists runs p may see, newest first.
func (c *Client) ListRuns(ctx context.Context, p api.Principal, req api.RunsRequest) ([]domain.Run, error) {
	h, v := as(p)
	setStr(v, "session", req.SessionKey)
	setStr(v, "parent", req.ParentRunID)
	if len(req.Statuses) > 0 {
		v.Set("status", strings.Join(domain.Strings(req.Statuses), ","))
	}
	if len(req.Kinds) > 0 {
		v.Set("kind", strings.Join(domain.Strings(req.Kinds), ","))
	}
	setInt(v, "limit", req.Limit)
	var out struct {
		Runs []domain.Run `json:"runs"`
	}
	err := c.do(ctx, http.MethodGet, apiPath("runs"), v, h, nil, &out)
	return out.Runs, err
}

// Patch changes a session's settings. Each field's three states go over
// the wire as they are: absent is left out, null clears, and a value ("" too)
// is the engine's to check.
func (c *Client) Patch(ctx context.Context, p api.Principal, req api.PatchRequest) (domain.Session, error) {
	if err := need("key", req.Key); err != nil {
		return domain.Session{}, err
	}
	h, q := as(p)
	body := map[string]any{}
	for _, name := range api.PatchFields {
		if f := req.Field(name); f.Given() {
			body[name] = f.Wire()
		}
	}
	var out domain.Session
	err := c.do(ctx, http.MethodPost, apiPath("sessions", req.Key, "patch"), q, h, body, &out)
	return out, err
}

// Reset starts a new transcript generation for a session.
func (c *Client) Reset(ctx context.Context, p api.Principal, req api.ResetRequest) (domain.Session, error) {
	if err := need("key", req.Key); err != nil {
		return domain.Session{}, err
	}
	h, q := as(p)
	var out domain.Session
	err := c.do(ctx, http.MethodPost, apiPath("sessions", req.Key, "reset"), q, h, nil, &out)
	return out, err
}

// Delete removes a session and its transcript.
func (c *Client) Delete(ctx context.Context, p api.Principal, req api.DeleteRequest) (api.DeleteResult, error) {
	if err := need("key", req.Key); err != nil {
		return api.DeleteResult{}, err
	}
	h, q := as(p)
	var out api.DeleteResult
	if err := c.do(ctx, http.MethodDelete, apiPath("sessions", req.Key), q, h, nil, &out); err != nil {
		return api.DeleteResult{}, err
	}
	if out.Key == "" {
		out.Key = req.Key
	}
	return out, nil
}

// Outbox lists deliveries (operator only) through GET /api/outbox; a
// gateway without that route answers ErrNoOutboxRoute.
func (c *Client) Outbox(ctx context.Context, p api.Principal, req api.OutboxRequest) ([]domain.OutboxItem, error) {
	h, q := as(p)
	if len(req.Statuses) > 0 {
		q.Set("status", strings.Join(domain.Strings(req.Statuses), ","))
	}
	setStr(q, "session", req.SessionKey)
	setStr(q, "run", req.RunID)
	setInt(q, "limit", req.Limit)
	var out struct {
		Items []domain.OutboxItem `json:"items"`
	}
	err := c.do(ctx, http.MethodGet, apiPath("outbox"), q, h, nil, &out)
	var ce *Error
	if errors.As(err, &ce) && ce.StatusCode == http.StatusNotFound && strings.HasPrefix(ce.Message, "no API route") {
		return nil, ErrNoOutboxRoute
	}
	return out.Items, err
}

// Resolve finds a session by key, sessionId or label (GET
// /api/sessions/resolve); one p may not see is answered as unknown.
func (c *Client) Resolve(ctx context.Context, p api.Principal, req api.ResolveRequest) (api.ResolveResult, error) {
	h, q := as(p)
	setStr(q, "key", req.Key)
	setStr(q, "sessionId", req.SessionID)
	setStr(q, "label", req.Label)
	setStr(q, "agentId", req.AgentID)
	var out api.ResolveResult
	err := c.do(ctx, http.MethodGet, apiPath("sessions", "resolve"), q, h, nil, &out)
	return out, err
}

// GetSession returns one session row p may see (GET /api/sessions/{key}).
func (c *Client) GetSession(ctx context.Context, p api.Principal, ref string) (api.SessionRow, error) {
	if err := need("session reference", ref); err != nil {
		return api.SessionRow{}, err
	}
	if strings.EqualFold(strings.TrimSpace(ref), "resolve") {
		// GET /api/sessions/resolve is the resolve route; a session named
		// "resolve" is read through its canonical key.
		res, err := c.Resolve(ctx, p, api.ResolveRequest{Key: ref})
		if err != nil {
			return api.SessionRow{}, err
		}
		ref = res.Key
	}
	h, q := as(p)
	var out api.SessionRow
	err := c.do(ctx, http.MethodGet, apiPath("sessions", ref), q, h, nil, &out)
	return out, err
}

// Defaults are the session defaults as p sees them (GET /api/defaults).
func (c *Client) Defaults(ctx context.Context, p api.Principal) (api.Defaults, error) {
	h, q := as(p)
	var out api.Defaults
	err := c.do(ctx, http.MethodGet, apiPath("defaults"), q, h, nil, &out)
	return out, err
}

// Deliver queues a direct outbound message (operator only; POST /api/send).
func (c *Client) Deliver(ctx context.Context, p api.Principal, req api.DeliverRequest) (api.DeliverResult, error) {
	h, q := as(p)
	body := map[string]any{"message": req.Message}
	for k, v := range map[string]string{"sessionKey": req.SessionKey, "channel": req.Channel, "to": req.To,
		"idempotencyKey": req.IdempotencyKey} {
		if v != "" {
			body[k] = v
		}
	}
	if len(req.Attachments) > 0 {
		body["attachments"] = req.Attachments
	}
	var out api.DeliverResult
	err := c.do(ctx, http.MethodPost, apiPath("send"), q, h, body, &out)
	return out, err
}

// need checks a required path argument.
func need(name, v string) error {
	if strings.TrimSpace(v) == "" {
		return fmt.Errorf("client: %s required", name)
	}
	return nil
}

func setStr(q url.Values, name, v string) {
	if v != "" {
		q.Set(name, v)
	}
}

func setInt(q url.Values, name string, v int) {
	if v > 0 {
		q.Set(name, strconv.Itoa(v))
	}
}

// UsageReport sums model usage (operator only) through GET /api/usage.
func (c *Client) UsageReport(ctx context.Context, p api.Principal, req api.UsageRequest) (api.UsageResult, error) {
	h, q := as(p)
	setStr(q, "by", req.By)
	if req.Since > 0 {
		q.Set("since", strconv.FormatInt(req.Since, 10))
	}
	setInt(q, "limit", req.Limit)
	var out api.UsageResult
	err := c.do(ctx, http.MethodGet, apiPath("usage"), q, h, nil, &out)
	return out, err
}

// LoopsList is GET /api/loops.
func (c *Client) LoopsList(ctx context.Context, p api.Principal) (api.LoopsResult, error) {
	h, q := as(p)
	var out api.LoopsResult
	err := c.do(ctx, http.MethodGet, apiPath("loops"), q, h, nil, &out)
	return out, err
}

// LoopResume is POST /api/loops/resume.
func (c *Client) LoopResume(ctx context.Context, p api.Principal, req api.LoopResumeRequest) (api.LoopResumeResult, error) {
	h, q := as(p)
	var out api.LoopResumeResult
	err := c.do(ctx, http.MethodPost, apiPath("loops", "resume"), q, h, req, &out)
	return out, err
}

var _ api.Operators = (*Client)(nil)
