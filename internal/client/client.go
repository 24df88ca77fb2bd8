// Package client is a small Go client for a running switchboard gateway's
// HTTP API. The CLI's remote mode and `switchboard mcp` use it when a
// gateway owns the state directory, so results come back as the same
// engine types the in-process path returns.
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
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/engine"
	"github.com/switchboard-go/switchboard/internal/policy"
)

// maxResponse bounds a response body (the gateway's maxPayload).
const maxResponse = 25 << 20

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
		return fmt.Errorf("client: gateway %s: %w", c.base.Host, err)
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

// CallTool calls a session tool as requesterKey (empty: the default
// agent's main session). The payload is the tool's JSON result.
func (c *Client) CallTool(ctx context.Context, requesterKey, name string, args json.RawMessage) (engine.ToolOutcome, error) {
	if err := need("tool name", name); err != nil {
		return engine.ToolOutcome{}, err
	}
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	h := http.Header{}
	if requesterKey != "" {
		h.Set("X-Switchboard-As", requesterKey)
	}
	var out struct {
		IsError bool            `json:"isError"`
		Result  json.RawMessage `json:"result"`
	}
	if err := c.do(ctx, http.MethodPost, apiPath("tools", name), nil, h, args, &out); err != nil {
		return engine.ToolOutcome{}, err
	}
	return engine.ToolOutcome{Payload: out.Result, IsError: out.IsError}, nil
}

// ListSessions lists sessions as requesterKey sees them (empty: operator,
// no visibility limits).
func (c *Client) ListSessions(ctx context.Context, requesterKey string, p engine.ListParams) (engine.ListResult, error) {
	q := url.Values{}
	setStr(q, "as", requesterKey)
	setInt(q, "limit", p.Limit)
	setInt(q, "activeMinutes", p.ActiveMinutes)
	setInt(q, "messages", p.MessageLimit)
	if len(p.Kinds) > 0 {
		q.Set("kinds", strings.Join(p.Kinds, ","))
	}
	setStr(q, "agent", p.AgentID)
	setStr(q, "search", p.Search)
	setStr(q, "label", p.Label)
	setStr(q, "spawnedBy", p.SpawnedBy)
	if p.IncludeArchived {
		q.Set("archived", "true")
	}
	var out engine.ListResult
	err := c.do(ctx, http.MethodGet, apiPath("sessions"), q, nil, nil, &out)
	return out, err
}

// History reads a session's transcript as requesterKey (empty: operator).
func (c *Client) History(ctx context.Context, requesterKey string, p engine.HistoryParams) (engine.HistoryResult, error) {
	if strings.TrimSpace(p.SessionKey) == "" {
		return engine.HistoryResult{}, errors.New("client: History needs a SessionKey")
	}
	q := url.Values{}
	setStr(q, "as", requesterKey)
	setInt(q, "limit", p.Limit)
	if p.BeforeSeq > 0 {
		q.Set("before", strconv.FormatInt(p.BeforeSeq, 10))
	}
	if p.IncludeTools {
		q.Set("includeTools", "true")
	}
	if p.Raw {
		q.Set("raw", "true")
	}
	var out engine.HistoryResult
	err := c.do(ctx, http.MethodGet, apiPath("sessions", p.SessionKey, "history"), q, nil, nil, &out)
	return out, err
}

// Send sends an inter-session message to p.SessionKey as requesterKey
// (empty: operator) and waits for the reply unless TimeoutSeconds is 0.
func (c *Client) Send(ctx context.Context, requesterKey string, p engine.SendParams) (engine.SendResult, error) {
	if strings.TrimSpace(p.SessionKey) == "" {
		return engine.SendResult{}, errors.New("client: Send needs a SessionKey (label targeting is tool-only: use CallTool sessions_send)")
	}
	body := map[string]any{"message": p.Message}
	if p.TimeoutSeconds != nil {
		body["timeoutSeconds"] = *p.TimeoutSeconds
	}
	if p.IdempotencyKey != "" {
		body["idempotencyKey"] = p.IdempotencyKey
	}
	if requesterKey != "" {
		body["as"] = requesterKey
	}
	var out engine.SendResult
	err := c.do(ctx, http.MethodPost, apiPath("sessions", p.SessionKey, "send"), nil, nil, body, &out)
	return out, err
}

// Chat posts a user message into a session (a channel message, webchat
// by default) and returns the run it started, or a command's answer.
func (c *Client) Chat(ctx context.Context, req engine.ChatRequest) (engine.ChatResult, error) {
	key := req.SessionKey
	if strings.TrimSpace(key) == "" {
		key = "main"
	}
	if req.Kind != "" && req.Kind != domain.RunKindChat {
		return engine.ChatResult{}, fmt.Errorf("client: Chat supports run kind %q only (got %q)", domain.RunKindChat, req.Kind)
	}
	body := map[string]any{"message": req.Message}
	for k, v := range map[string]string{"idempotencyKey": req.IdempotencyKey, "model": req.Model, "thinking": req.Thinking,
		"channel": req.Channel, "senderId": req.SenderID} {
		if v != "" {
			body[k] = v
		}
	}
	if req.TimeoutSeconds > 0 {
		body["timeoutSeconds"] = req.TimeoutSeconds
	}
	if req.ExtraSystem != "" {
		return engine.ChatResult{}, errors.New("client: Chat cannot carry ExtraSystem over the HTTP API")
	}
	var out struct {
		Run        *domain.Run `json:"run"`
		SessionKey string      `json:"sessionKey"`
		Command    string      `json:"command"`
		Reply      string      `json:"reply"`
		Created    bool        `json:"created"`
	}
	if err := c.do(ctx, http.MethodPost, apiPath("sessions", key, "chat"), nil, nil, body, &out); err != nil {
		return engine.ChatResult{}, err
	}
	res := engine.ChatResult{SessionKey: out.SessionKey, Command: out.Command, Reply: out.Reply, Created: out.Created}
	if out.Run != nil {
		res.Run = *out.Run
	}
	return res, nil
}

// Spawn starts a sub-agent as requesterKey (empty: operator acting as the
// default agent's main session).
func (c *Client) Spawn(ctx context.Context, requesterKey string, p engine.SpawnParams) (engine.SpawnResult, error) {
	body := map[string]any{"task": p.Task}
	for k, v := range map[string]string{"label": p.Label, "agentId": p.AgentID, "model": p.Model, "thinking": p.Thinking,
		"mode": p.Mode, "cleanup": p.Cleanup, "sandbox": p.Sandbox, "idempotencyKey": p.IdempotencyKey, "as": requesterKey} {
		if v != "" {
			body[k] = v
		}
	}
	if p.RunTimeoutSeconds != nil {
		body["runTimeoutSeconds"] = *p.RunTimeoutSeconds
	}
	if p.Thread {
		body["thread"] = true
	}
	if len(p.Attachments) > 0 {
		body["attachments"] = p.Attachments
	}
	if p.MountPath != "" {
		body["attachAs"] = map[string]string{"mountPath": p.MountPath}
	}
	var out engine.SpawnResult
	err := c.do(ctx, http.MethodPost, apiPath("spawn"), nil, nil, body, &out)
	return out, err
}

// Run returns a run as it stands.
func (c *Client) Run(ctx context.Context, runID string) (domain.Run, error) {
	if err := need("runID", runID); err != nil {
		return domain.Run{}, err
	}
	var out domain.Run
	err := c.do(ctx, http.MethodGet, apiPath("runs", runID), nil, nil, nil, &out)
	return out, err
}

// WaitRun waits up to timeout for a run to end and returns it; a run that
// has not ended by then comes back with its current status (check it with
// domain.RunTerminal).
func (c *Client) WaitRun(ctx context.Context, runID string, timeout time.Duration) (domain.Run, error) {
	if err := need("runID", runID); err != nil {
		return domain.Run{}, err
	}
	q := url.Values{"wait": {timeout.String()}}
	var out domain.Run
	err := c.do(ctx, http.MethodGet, apiPath("runs", runID), q, nil, nil, &out)
	return out, err
}

// CancelRun cancels a run and every run it started.
func (c *Client) CancelRun(ctx context.Context, runID string) (domain.Run, error) {
	if err := need("runID", runID); err != nil {
		return domain.Run{}, err
	}
	var out domain.Run
	err := c.do(ctx, http.MethodPost, apiPath("runs", runID, "cancel"), nil, nil, nil, &out)
	return out, err
}

// ListRuns lists runs, newest first.
func (c *Client) ListRuns(ctx context.Context, q domain.RunQuery) ([]domain.Run, error) {
	v := url.Values{}
	setStr(v, "session", q.SessionKey)
	setStr(v, "parent", q.ParentRunID)
	if len(q.Statuses) > 0 {
		v.Set("status", strings.Join(q.Statuses, ","))
	}
	if len(q.Kinds) > 0 {
		v.Set("kind", strings.Join(q.Kinds, ","))
	}
	setInt(v, "limit", q.Limit)
	var out struct {
		Runs []domain.Run `json:"runs"`
	}
	err := c.do(ctx, http.MethodGet, apiPath("runs"), v, nil, nil, &out)
	return out.Runs, err
}

// Patch changes a session's settings; nil fields stay, "" clears.
func (c *Client) Patch(ctx context.Context, key string, p engine.PatchParams) (domain.Session, error) {
	if err := need("key", key); err != nil {
		return domain.Session{}, err
	}
	body := map[string]any{}
	for name, v := range map[string]*string{"label": p.Label, "sendPolicy": p.SendPolicy, "model": p.Model,
		"thinkingLevel": p.ThinkingLevel, "verboseLevel": p.VerboseLevel} {
		if v == nil {
			continue
		}
		if *v == "" {
			body[name] = nil
		} else {
			body[name] = *v
		}
	}
	var out domain.Session
	err := c.do(ctx, http.MethodPost, apiPath("sessions", key, "patch"), nil, nil, body, &out)
	return out, err
}

// Reset starts a new transcript generation for a session.
func (c *Client) Reset(ctx context.Context, key string) (domain.Session, error) {
	if err := need("key", key); err != nil {
		return domain.Session{}, err
	}
	var out domain.Session
	err := c.do(ctx, http.MethodPost, apiPath("sessions", key, "reset"), nil, nil, nil, &out)
	return out, err
}

// Delete removes a session and its transcript.
func (c *Client) Delete(ctx context.Context, key string) error {
	if err := need("key", key); err != nil {
		return err
	}
	return c.do(ctx, http.MethodDelete, apiPath("sessions", key), nil, nil, nil, nil)
}

// Agents lists the agents requesterKey may spawn under (empty: the
// default agent's main session).
func (c *Client) Agents(ctx context.Context, requesterKey string) (policy.AgentsListResult, error) {
	q := url.Values{}
	setStr(q, "as", requesterKey)
	var out policy.AgentsListResult
	err := c.do(ctx, http.MethodGet, apiPath("agents"), q, nil, nil, &out)
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
