package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/engine"
)

// Caller runs a tool as a principal: the CallTool of api.Service.
// *engine.Engine satisfies it in-process; RemoteCaller does over a running
// gateway.
type Caller interface {
	CallTool(ctx context.Context, p api.Principal, name string, args json.RawMessage) api.ToolOutcome
}

var (
	_ Caller = (*engine.Engine)(nil)
	_ Caller = api.Service(nil)
)

// Options configure a Server.
type Options struct {
	// Tools are the tools advertised (default DefaultTools()). Names the
	// engine does not know are left out with a warning.
	Tools []string
	// Version is the server version reported to clients.
	Version string
	// Logger receives warnings and the SDK's logs (default: discard).
	Logger *slog.Logger
	// MaxRequestBytes bounds an HTTP request body (default 16 MiB, room
	// for sessions_spawn attachments encoded as base64).
	MaxRequestBytes int64
	// Sessions serves resources, prompts and completions (default: the
	// caller, when it is one). Without it only tools are offered.
	Sessions Sessions
	// Events feed resource subscriptions and list changes (default: the
	// caller, when it is one). Without them subscribing is not offered.
	Events Events
	// Logs, when set, sends the process's log records (Logger should be
	// wrapped by it) to stdio sessions after their logging/setLevel.
	Logs *LogTee
}

// defaultMaxRequestBytes fits the largest sessions_spawn a default config
// accepts (5 MiB of attachments, a third more as base64) with room to spare.
const defaultMaxRequestBytes = 16 << 20

// maxCachedServers bounds the per-principal MCP servers the HTTP handler
// keeps; principals beyond it get a server built for the request.
const maxCachedServers = 256

// Server serves switchboard's session tools over MCP. Build it with New;
// it is safe for concurrent use. Close stops the HTTP handler's calls;
// RunStdio owns and stops its own.
type Server struct {
	caller  Caller
	tools   []*mcp.Tool
	version string
	log     *slog.Logger
	maxBody int64

	// http owns the tool calls of every HTTP request.
	http *calls

	sessions Sessions // nil: tools only
	logs     *LogTee  // nil: no log notifications
	events   Events   // nil: no subscriptions
	page     int      // sessions per resources/list page

	mu      sync.Mutex
	servers map[api.Principal]*mcp.Server // per principal, for HTTP
	pump    *pump                         // the HTTP servers' events, started with the first
	closed  bool
}

// New returns a Server that forwards tool calls to caller.
func New(caller Caller, opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if len(opts.Tools) == 0 {
		opts.Tools = DefaultTools()
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if opts.MaxRequestBytes <= 0 {
		opts.MaxRequestBytes = defaultMaxRequestBytes
	}
	tools, unknown, err := buildTools(opts.Tools)
	if err != nil {
		// The engine's specs are constants; a broken one is a bug there.
		opts.Logger.Error("mcp: tool schemas", "err", err)
	}
	if len(unknown) > 0 {
		opts.Logger.Warn("mcp: unknown tools left out", "tools", strings.Join(unknown, ", "),
			"known", strings.Join(api.AllTools(), ", "))
	}
	if opts.Sessions == nil {
		opts.Sessions, _ = caller.(Sessions)
	}
	if opts.Events == nil {
		opts.Events, _ = caller.(Events)
	}
	if opts.Sessions == nil {
		opts.Events = nil
	}
	return &Server{
		sessions: opts.Sessions,
		logs:     opts.Logs,
		events:   opts.Events,
		page:     resourcePage,
		caller:   caller,
		tools:    tools,
		version:  opts.Version,
		log:      opts.Logger,
		maxBody:  opts.MaxRequestBytes,
		http:     newCalls(context.Background()),
		servers:  map[api.Principal]*mcp.Server{},
	}
}

// Tools returns the names of the advertised tools, in order.
func (s *Server) Tools() []string {
	out := make([]string, len(s.tools))
	for i, t := range s.tools {
		out[i] = t.Name
	}
	return out
}

// Close cancels the tool calls of HTTP requests still running and waits
// for them to return (or for ctx to end). Later HTTP tool calls fail with
// an isError result. Call it after the HTTP server stopped accepting
// requests.
func (s *Server) Close(ctx context.Context) error {
	s.mu.Lock()
	p := s.pump
	s.pump, s.closed = nil, true
	s.mu.Unlock()
	if p != nil {
		p.close()
	}
	if err := s.http.close(ctx); err != nil {
		return fmt.Errorf("mcp: close: %w", err)
	}
	return nil
}

// newMCPServer builds an SDK server whose tools act as the principal, with
// their calls owned by owner. The watcher (nil without events) is to be fed
// the engine's events by the server's owner.
//
// A stateless server (HTTP) ends each request's session with the request,
// so it takes subscriptions only on protocol 2026-07-28's
// subscriptions/listen, whose response stream carries the notifications.
func (s *Server) newMCPServer(p api.Principal, owner *calls, stateless bool) (*mcp.Server, *watcher) {
	who := "the session " + p.Requester()
	if p.IsOperator() {
		who = "the operator (every session is visible to you)"
	}
	if !p.Scopes.Has(api.ScopeWrite) {
		who += ", read-only: sessions_send, sessions_spawn and cancelling sub-agents are refused"
	}
	opts := &mcp.ServerOptions{
		Logger: untee(s.log),
		Instructions: "switchboard session tools. You act as " + who + ": sessions_list shows the " +
			"sessions you can see, sessions_history reads one, sessions_send talks to another agent's session, " +
			"sessions_spawn starts a sub-agent whose result is announced back to your session.",
		// The tool list never changes.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
	}
	if !stateless && s.logs != nil {
		opts.Capabilities.Logging = &mcp.LoggingCapabilities{}
	}
	var w *watcher
	rs := resources{sessions: s.sessions, p: p, page: s.page}
	if s.sessions != nil {
		opts.Instructions += " Every session you can see is also a resource (" + uriPrefix + "<sessionKey>)."
		opts.Capabilities.Resources = &mcp.ResourceCapabilities{}
		opts.Capabilities.Prompts = &mcp.PromptCapabilities{}
		opts.CompletionHandler = rs.complete
		if s.events != nil {
			w = newWatcher(rs, s.events)
			opts.SubscribeHandler, opts.UnsubscribeHandler = w.subscribe, w.unsubscribe
			opts.Capabilities.Resources = &mcp.ResourceCapabilities{Subscribe: true, ListChanged: true}
		}
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "switchboard", Title: "switchboard session tools", Version: s.version}, opts)
	for _, t := range s.tools {
		srv.AddTool(t, s.handler(t.Name, p, owner))
	}
	if s.sessions != nil {
		srv.AddResourceTemplate(sessionResourceTemplate(), rs.templateHandler)
		for _, pr := range prompts() {
			srv.AddPrompt(pr.withArgs(), pr.handler(rs))
		}
		srv.AddReceivingMiddleware(rs.middleware)
		if stateless {
			srv.AddReceivingMiddleware(refuseLegacySubscribe)
		}
	}
	if w != nil {
		w.srv = srv
	}
	return srv, w
}

// handler is the SDK tool handler of one tool. It never returns a Go
// error: every failure, bad arguments included, is an isError result with
// the engine's message, which a model can read and act on.
func (s *Server) handler(name string, p api.Principal, owner *calls) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx, done, err := owner.begin(ctx)
		if err != nil {
			return toResult(errorOutcome(err)), nil
		}
		defer done()
		var args json.RawMessage
		var meta map[string]any
		if req != nil && req.Params != nil {
			args = req.Params.Arguments
			meta = req.Params.Meta
		}
		if k := idempotencyKey(meta); k != "" && takesIdempotencyKey(name) {
			args = withArgument(args, "idempotencyKey", "idempotency_key", k)
		}
		ctx, span := traceCall(ctx, name, meta)
		out := s.caller.CallTool(ctx, p, name, args)
		if out.IsError {
			span.Fail("tool returned an error")
		}
		span.End(nil)
		return toResult(out), nil
	}
}

// idempotencyKey reads _meta.idempotencyKey of a tool call (a string;
// anything else is ignored, as _meta is advisory).
func idempotencyKey(meta map[string]any) string {
	if k, ok := meta["idempotencyKey"].(string); ok {
		return k
	}
	return ""
}

// serverFor returns the HTTP handler's SDK server for a principal,
// building and caching it on first use.
func (s *Server) serverFor(p api.Principal) *mcp.Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	if srv, ok := s.servers[p]; ok {
		return srv
	}
	srv, w := s.newMCPServer(p, s.http, true)
	if len(s.servers) < maxCachedServers && !s.closed {
		s.servers[p] = srv
		// Only cached servers hear of events: a subscription needs a
		// server that outlives the request; a principal past the cache
		// is refused subscriptions (watcher.live).
		if w != nil {
			if s.pump == nil {
				s.pump = startPump(s.events, s.log)
			}
			s.pump.add(w)
		}
	}
	return srv
}
