package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// resourcePage is how many sessions one resources/list page holds: within
// what the gate lists for a requester in one call (api.ListLimit).
const resourcePage = 100

// resources answers resources/list and resources/read for one principal
// from the gate, page by page, instead of the SDK's registered list (which
// would hold every session in memory).
type resources struct {
	sessions Sessions
	p        api.Principal
	page     int
}

// middleware intercepts the resource methods; every other method goes on
// to the SDK.
func (rs resources) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "resources/list":
			var cursor string
			if r, ok := req.(*mcp.ListResourcesRequest); ok && r.Params != nil {
				cursor = r.Params.Cursor
			}
			return rs.list(ctx, cursor)
		case "resources/read":
			r, ok := req.(*mcp.ReadResourceRequest)
			if !ok || r.Params == nil {
				return nil, rpcError(domain.Invalid("uri: required"))
			}
			return rs.read(ctx, r.Params.URI)
		}
		return next(ctx, method, req)
	}
}

// list is one page of the sessions the principal may see.
func (rs resources) list(ctx context.Context, cursor string) (*mcp.ListResourcesResult, error) {
	offset, err := parseListCursor(cursor)
	if err != nil {
		return nil, rpcError(err)
	}
	res, err := rs.sessions.ListSessions(ctx, rs.p, api.ListRequest{Limit: rs.page, Offset: offset, IncludeDerivedTitles: true})
	if err != nil {
		return nil, rpcError(err)
	}
	out := &mcp.ListResourcesResult{Resources: make([]*mcp.Resource, 0, len(res.Sessions))}
	for _, row := range res.Sessions {
		title := row.DerivedTitle
		if title == "" {
			title = row.Key
		}
		r := &mcp.Resource{
			URI:         sessionURI(row.Key),
			Name:        row.Key,
			Title:       title,
			Description: describe(row),
			MIMEType:    mimeMarkdown,
		}
		if row.UpdatedAt > 0 {
			r.Annotations = &mcp.Annotations{LastModified: time.UnixMilli(row.UpdatedAt).UTC().Format(time.RFC3339)}
		}
		out.Resources = append(out.Resources, r)
	}
	if res.HasMore {
		next := offset + len(res.Sessions)
		if res.NextOffset != nil {
			next = *res.NextOffset
		}
		out.NextCursor = listCursor(next)
	}
	return out, nil
}

// read is a session's transcript as sessions_history shows it to the
// principal: the same visibility, sanitizing, redaction and size caps.
func (rs resources) read(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
	ref, err := parseSessionURI(uri)
	if err != nil {
		return nil, rpcError(err)
	}
	h, err := rs.sessions.History(ctx, rs.p, api.HistoryRequest{SessionKey: ref.Key, Limit: ref.Limit})
	if err != nil {
		if notFound(err) {
			return nil, resourceNotFound(uri, err)
		}
		return nil, rpcError(err)
	}
	if ref.JSON {
		b, err := json.Marshal(h)
		if err != nil {
			return nil, rpcError(fmt.Errorf("transcript: %w", err))
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mimeJSON, Text: string(b)}}}, nil
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mimeMarkdown, Text: markdown(h)}}}, nil
}

// canonical resolves the session a subscription names to the key its
// events carry, refusing sessions the principal may not see as unknown.
func canonical(ctx context.Context, ev Events, p api.Principal, uri string) (string, error) {
	ref, err := parseSessionURI(uri)
	if err != nil {
		return "", rpcError(err)
	}
	key, err := ev.SubscribeKey(ctx, p, ref.Key)
	if err != nil {
		if notFound(err) {
			return "", resourceNotFound(uri, err)
		}
		return "", rpcError(err)
	}
	return key, nil
}

// notFound reports whether err means the session is unknown to the
// principal: the gate answers a session it may not see as unknown, and
// forbidden here says the same.
func notFound(err error) bool {
	c := domain.ErrorCode(err)
	return c == domain.CodeNotFound || c == domain.CodeForbidden || errors.Is(err, domain.ErrNotFound)
}

// resourceNotFound is MCP's "resource not found" error with the URI and
// the gate's machine-readable code (not_found, or forbidden where
// sessions_history says forbidden).
func resourceNotFound(uri string, err error) error {
	data, _ := json.Marshal(map[string]string{"uri": uri, "code": domain.ErrorCode(err)})
	return &jsonrpc.Error{Code: mcp.CodeResourceNotFound, Message: "Resource not found: " + uri, Data: data}
}

// rpcError is the JSON-RPC error of a refusal: invalid params for bad
// input, an internal error otherwise; data.code is switchboard's
// machine-readable code (domain.Code*) on every one.
func rpcError(err error) error {
	code := domain.ErrorCode(err)
	if code == "" {
		code = domain.CodeInternal
	}
	rpc := int64(jsonrpc.CodeInternalError)
	msg := "internal error"
	var de *domain.Error
	if errors.As(err, &de) {
		msg = de.Message
		if code == domain.CodeInvalid {
			rpc = jsonrpc.CodeInvalidParams
		}
	}
	data, _ := json.Marshal(map[string]string{"code": code})
	return &jsonrpc.Error{Code: rpc, Message: msg, Data: data}
}

// markdown renders a transcript for people: one section per message.
func markdown(h api.HistoryResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Session %s\n\n", h.SessionKey)
	if h.SessionID != "" {
		fmt.Fprintf(&b, "sessionId: %s\n\n", h.SessionID)
	}
	if h.HasMore || h.Truncated || h.DroppedMessages {
		b.WriteString("_Older messages are not shown (read with ?limit=N, or sessions_history with beforeMessageId)._\n\n")
	}
	if h.ContentTruncated || h.ContentRedacted {
		b.WriteString("_Some content is cut or redacted, as sessions_history shows it._\n\n")
	}
	if len(h.Messages) == 0 {
		b.WriteString("_No messages._\n")
	}
	for _, m := range h.Messages {
		fmt.Fprintf(&b, "## %s", m.Role)
		if m.Timestamp > 0 {
			fmt.Fprintf(&b, " · %s", time.UnixMilli(m.Timestamp).UTC().Format(time.RFC3339))
		}
		b.WriteString("\n\n")
		if t := m.Content.Text(); t != "" {
			b.WriteString(t)
			b.WriteString("\n\n")
		}
		for _, c := range m.Content.ToolCalls() {
			fmt.Fprintf(&b, "_tool call: %s_\n\n", c.Name)
		}
		if m.ToolName != "" {
			fmt.Fprintf(&b, "_tool result of %s_\n\n", m.ToolName)
		}
	}
	return b.String()
}

// sessionResourceTemplate is the resource template of a session key.
func sessionResourceTemplate() *mcp.ResourceTemplate {
	return &mcp.ResourceTemplate{
		URITemplate: sessionTemplate,
		Name:        "session",
		Title:       "Session transcript",
		Description: "A switchboard session's transcript, as sessions_history shows it to you: Markdown, " +
			"or sessions_history's JSON with format=json; limit=N for the newest N messages.",
		MIMEType: mimeMarkdown,
	}
}

// templateHandler reads through the template; the middleware answers
// reads first, so it serves only if that changes.
func (rs resources) templateHandler(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	return rs.read(ctx, req.Params.URI)
}

// refuseLegacySubscribe answers resources/subscribe on stateless HTTP,
// where the session it would subscribe ends with the request: the
// subscription must be a subscriptions/listen request (protocol
// 2026-07-28), or go over stdio.
func refuseLegacySubscribe(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "resources/subscribe" {
			return nil, rpcError(domain.Invalid("resources/subscribe: this endpoint is stateless HTTP; subscribe " +
				"with subscriptions/listen (protocol 2026-07-28), whose response streams the notifications, or over stdio"))
		}
		return next(ctx, method, req)
	}
}
