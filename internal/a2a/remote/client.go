package remote

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/switchboard-go/switchboard/internal/a2a/wire"
	"github.com/switchboard-go/switchboard/internal/tracing"
	"github.com/switchboard-go/switchboard/internal/urlguard"
)

// Remote is one configured remote agent (a2a.remotes[]).
type Remote struct {
	ID      string
	CardURL string
	// Endpoint, when set, is the JSON-RPC endpoint called instead of the
	// one the card names (a2a.remotes[].endpoint).
	Endpoint string
	Token    string
	// AllowPrivateNetwork admits loopback, private and link-local targets
	// (a2a.ssrfPolicy.dangerouslyAllowPrivateNetwork).
	AllowPrivateNetwork bool
}

// guard is the outbound URL policy of r.
func (r Remote) guard() *urlguard.Guard {
	return urlguard.New(urlguard.Policy{AllowPrivateNetwork: r.AllowPrivateNetwork})
}

// Options configure a Client; every field is optional.
type Options struct {
	// HTTP carries every request (default: a client of the remote's
	// urlguard policy, which also checks the address it dials; the
	// caller's context bounds each call). Redirects are refused either
	// way.
	HTTP *http.Client
	// CardTTL is how long a fetched card is used before it is read again
	// (default 5 minutes). A failed call drops it at once.
	CardTTL time.Duration
	// Now is the clock of the card cache (default time.Now).
	Now func() time.Time
	// PollFirst and PollMax bound the GetTask polling interval while a
	// task works (defaults 20 ms and 1 s, doubling).
	PollFirst, PollMax time.Duration
}

// Client calls remote A2A agents. It is safe for concurrent use; its only
// state is the card cache.
type Client struct {
	hc        *http.Client // nil: the guard's own client per policy
	strict    *http.Client
	private   *http.Client
	cardTTL   time.Duration
	now       func() time.Time
	pollFirst time.Duration
	pollMax   time.Duration

	mu    sync.Mutex
	cards map[string]cached
}

// New returns a Client.
func New(o Options) *Client {
	c := &Client{cardTTL: o.CardTTL, now: o.Now, pollFirst: o.PollFirst, pollMax: o.PollMax, cards: map[string]cached{},
		strict:  urlguard.New(urlguard.Policy{}).Client(0),
		private: urlguard.New(urlguard.Policy{AllowPrivateNetwork: true}).Client(0)}
	if o.HTTP != nil {
		hc := *o.HTTP
		hc.CheckRedirect = urlguard.NoRedirects
		c.hc = &hc
	}
	if c.cardTTL <= 0 {
		c.cardTTL = 5 * time.Minute
	}
	if c.now == nil {
		c.now = time.Now
	}
	if c.pollFirst <= 0 {
		c.pollFirst = 20 * time.Millisecond
	}
	if c.pollMax <= 0 {
		c.pollMax = time.Second
	}
	return c
}

// Message is what Send sends: text in a context, with the chain.
type Message struct {
	ContextID string
	Text      string
	// Chain goes into the message metadata under ChainKey.
	Chain []string
	// MessageID identifies the message; the same id again is a retry of
	// the same message to servers that deduplicate (switchboard's does).
	// Empty: a random id.
	MessageID string
}

func (m Message) id() string {
	if m.MessageID != "" {
		return m.MessageID
	}
	return newID()
}

// Result is the remote's answer.
type Result struct {
	// Reply is the text of the task's artifacts (or of the message the
	// remote answered with, or of its final status message).
	Reply string
	// TaskID is the remote task ("" when the remote answered with a
	// message and no task).
	TaskID string
	// Version is the protocol version spoken.
	Version string
}

// maxResponseBytes bounds one JSON-RPC answer.
const maxResponseBytes = 8 << 20

// Send sends msg to r and waits until the remote's task ends or ctx is
// done. Errors name the remote ("remote planner: …") and wrap one of the
// package's Err values, or ctx's error.
func (c *Client) Send(ctx context.Context, r Remote, msg Message) (Result, error) {
	res, err := c.send(ctx, r, msg)
	if err != nil {
		if !errors.Is(err, ErrTaskFailed) {
			c.forget(r)
		}
		return Result{}, fmt.Errorf("remote %s: %w", r.ID, err)
	}
	return res, nil
}

func (c *Client) send(ctx context.Context, r Remote, msg Message) (Result, error) {
	ep, err := c.endpoint(ctx, r)
	if err != nil {
		return Result{}, err
	}
	if ep.Streaming {
		return c.sendStream(ctx, r, ep, msg)
	}
	if ep.Version == wire.LegacyVersion {
		return c.sendLegacy(ctx, r, ep, msg)
	}
	// Not blocking: the answer names the task at once, so a caller that
	// stops waiting can cancel it (a server that blocks anyway is polled
	// no differently).
	req := detach(ctx)
	defer req.end()
	var out json.RawMessage
	if err := c.call(req.ctx, r, ep, wire.MethodSendMessage, wire.SendMessageRequest{Message: modernMessage(msg),
		Configuration: &wire.SendMessageConfiguration{ReturnImmediately: true}}, &out); err != nil {
		if ctx.Err() != nil {
			return Result{}, context.Cause(ctx)
		}
		return Result{}, err
	}
	var answer wire.SendMessageResponse
	if err := json.Unmarshal(out, &answer); err != nil {
		return Result{}, fmt.Errorf("%w: SendMessage result: %v", ErrProtocol, err)
	}
	switch {
	case answer.Message != nil:
		return Result{Reply: partsText(answer.Message.Parts), Version: ep.Version}, nil
	case answer.Task == nil:
		return Result{}, fmt.Errorf("%w: SendMessage answered neither a task nor a message", ErrProtocol)
	}
	return c.poll(ctx, r, ep, *answer.Task)
}

// modernMessage is msg as a 1.0 message.
func modernMessage(msg Message) *wire.Message {
	text := msg.Text
	m := &wire.Message{MessageID: msg.id(), ContextID: msg.ContextID, Role: wire.RoleUser, Parts: []wire.Part{{Text: &text}}}
	if len(msg.Chain) > 0 {
		m.Metadata = map[string]any{ChainKey: msg.Chain}
	}
	return m
}

// taskResult is the Result of a task that stopped.
func taskResult(task wire.Task, version string) (Result, error) {
	status := ""
	if task.Status.Message != nil {
		status = partsText(task.Status.Message.Parts)
	}
	switch task.Status.State {
	case wire.TaskStateCompleted:
		var texts []string
		for _, a := range task.Artifacts {
			if t := partsText(a.Parts); t != "" {
				texts = append(texts, t)
			}
		}
		reply := strings.Join(texts, "\n")
		if reply == "" {
			reply = status
		}
		return Result{Reply: reply, TaskID: task.ID, Version: version}, nil
	case wire.TaskStateInputRequired, wire.TaskStateAuthRequired:
		return Result{}, fmt.Errorf("%w: task %s stopped in %s (switchboard answers no follow-up questions)%s", ErrTaskFailed, task.ID, task.Status.State, suffix(status))
	default:
		return Result{}, fmt.Errorf("%w: task %s ended %s%s", ErrTaskFailed, task.ID, task.Status.State, suffix(status))
	}
}

func suffix(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
}

// cancelTask asks the remote to cancel a task the caller stopped waiting
// for, best effort and briefly: the caller's context is already done.
func (c *Client) cancelTask(r Remote, ep Endpoint, id string) {
	if id == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	method, params := wire.MethodCancelTask, any(wire.CancelTaskRequest{ID: id})
	if ep.Version == wire.LegacyVersion {
		method, params = wire.LegacyMethodCancelTask, legacyTaskID{ID: id}
	}
	var ignored json.RawMessage
	_ = c.call(ctx, r, ep, method, params, &ignored) // best effort: the remote may not allow it
}

// call makes one JSON-RPC call and decodes its result into out.
func (c *Client) call(ctx context.Context, r Remote, ep Endpoint, method string, params, out any) error {
	ctx, span := tracing.StartClient(ctx, "a2a "+method, attribute.String("rpc.system", "jsonrpc"), attribute.String("rpc.method", method))
	defer span.End(nil)
	resp, err := c.post(ctx, r, ep, method, params, "application/json")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return c.decodeAnswer(ctx, resp, method, out)
}

// post sends one JSON-RPC request and returns the HTTP answer (its
// status not yet looked at).
func (c *Client) post(ctx context.Context, r Remote, ep Endpoint, method string, params any, accept string) (*http.Response, error) {
	rawParams, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("%s params: %w", method, err)
	}
	body, err := json.Marshal(wire.Request{JSONRPC: wire.JSONRPCVersion, ID: json.RawMessage(`1`), Method: method, Params: rawParams})
	if err != nil {
		return nil, fmt.Errorf("%s request: %w", method, err)
	}
	if _, err := r.guard().CheckURL(ep.URL); err != nil {
		return nil, fmt.Errorf("%w: endpoint: %w", ErrBadCard, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.URL, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: endpoint %q: %v", ErrBadCard, ep.URL, err)
	}
	// The remote gateway's work joins this trace (W3C traceparent).
	tracing.InjectHeaders(ctx, req.Header)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	if ep.Version == wire.Version {
		req.Header.Set(wire.VersionHeader, wire.Version)
	}
	if r.Token != "" {
		req.Header.Set("Authorization", "Bearer "+r.Token)
	}
	resp, err := c.client(r).Do(req)
	if err != nil {
		return nil, unreachable(ctx, err)
	}
	return resp, nil
}

// decodeAnswer reads a JSON-RPC answer and decodes its result into out.
func (c *Client) decodeAnswer(ctx context.Context, resp *http.Response, method string, out any) error {
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return unreachable(ctx, err)
	}
	if err := httpStatus(resp, method); err != nil {
		return err
	}
	if len(data) > maxResponseBytes {
		return fmt.Errorf("%w: %s answer is larger than %d bytes", ErrProtocol, method, maxResponseBytes)
	}
	var rpc wire.Response
	if err := json.Unmarshal(data, &rpc); err != nil {
		return fmt.Errorf("%w: %s answer is not JSON-RPC: %v", ErrUnreachable, method, err)
	}
	return result(rpc, method, out)
}

// result decodes one JSON-RPC response's result into out.
func result(rpc wire.Response, method string, out any) error {
	if rpc.Error != nil {
		return fmt.Errorf("%w: %s answered JSON-RPC error %d%s", ErrProtocol, method, rpc.Error.Code, remoteSays(rpc.Error.Message))
	}
	if len(rpc.Result) == 0 || string(rpc.Result) == "null" {
		return fmt.Errorf("%w: %s answered without a result", ErrProtocol, method)
	}
	if err := json.Unmarshal(rpc.Result, out); err != nil {
		return fmt.Errorf("%w: %s result: %v", ErrProtocol, method, err)
	}
	return nil
}

// client is the HTTP client of r's requests.
func (c *Client) client(r Remote) *http.Client {
	switch {
	case c.hc != nil:
		return c.hc
	case r.AllowPrivateNetwork:
		return c.private
	default:
		return c.strict
	}
}

// partsText joins the text parts of a message or artifact.
func partsText(parts []wire.Part) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Text != nil {
			b.WriteString(*p.Text)
		}
	}
	return b.String()
}

// wait sleeps d or until ctx is done.
func wait(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// newID is a random message id.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go ≥ 1.24)
	return hex.EncodeToString(b[:])
}
