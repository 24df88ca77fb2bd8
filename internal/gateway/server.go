package gateway

import (
	"context"
	"errors"
	"fmt"
	"github.com/switchboard-go/switchboard/internal/channels"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/controlui"
	"github.com/switchboard-go/switchboard/internal/ratelimit"
)

// Defaults of the protocol policy (OpenClaw's values).
const (
	DefaultMaxPayload       = 25 << 20
	DefaultPreauthPayload   = 64 << 10
	DefaultMaxBufferedBytes = 50 << 20
	DefaultTickInterval     = 30 * time.Second
	DefaultHandshakeTimeout = 10 * time.Second
	// ProtocolMin and ProtocolMax are the protocol versions spoken.
	ProtocolMin = 3
	ProtocolMax = 4
)

// Options configure a Server. Engine is required.
type Options struct {
	// Engine serves every call (an *engine.Engine).
	Engine Engine
	// Config is read only for gateway.limits and gateway.allowedOrigins
	// when Limits and AllowedOrigins are not given: what callers see comes
	// through Engine (api.Service).
	Config *config.Config
	// Token is the main gateway token (gateway.auth.token or
	// SWITCHBOARD_GATEWAY_TOKEN, resolved by the caller). Empty with no
	// Tokens means no authentication, which only a loopback listener
	// accepts (see Listen).
	Token string
	// Tokens are extra tokens with narrowed scopes or a bound session.
	Tokens []config.TokenBinding
	// MCP is mounted at /mcp (nil answers 404).
	MCP http.Handler
	// A2A serves /.well-known/agent-card.json and /a2a/ (nil answers 404):
	// agent cards are public, JSON-RPC calls are authenticated like every
	// other route and carry the principal (PrincipalOf).
	A2A http.Handler
	// Web serves GET requests that are not WebSocket upgrades or API
	// routes (nil serves a small placeholder page).
	Web http.Handler
	// ControlUI serves OpenClaw's Control UI under its base path, and
	// accepts the WebSocket there too, where that UI opens it (nil: not
	// served).
	ControlUI *controlui.Handler
	// Channels reports the chat channels (channels.status, /healthz,
	// metrics); Pairing answers channels.pairing.* (nil: not available).
	Channels *channels.Registry
	Pairing  *channels.Pairing
	Logger   *slog.Logger
	Version  string
	Now      func() time.Time

	// Limits are gateway.limits (connections, timeouts, payload and
	// buffered bytes); zero fields take the defaults. When Limits is zero
	// and Config is set, Config.Gateway.Limits is used.
	Limits config.GatewayLimits
	// AllowedOrigins are browser origins allowed besides the web UI's own
	// (gateway.allowedOrigins; taken from Config when nil).
	AllowedOrigins []string

	// Protocol policy; zero values take the defaults above (or
	// Limits.MaxPayload and Limits.MaxBufferedBytes).
	HandshakeTimeout time.Duration
	TickInterval     time.Duration
	MaxPayload       int64
	PreauthPayload   int64
	MaxBufferedBytes int64
	// ShutdownTimeout bounds the graceful stop Serve performs when its
	// context ends (default 10s).
	ShutdownTimeout time.Duration
}

// Server is the gateway. Build it with New, run it with Serve (or
// ListenAndServe), stop it with Shutdown.
type Server struct {
	opts Options
	// bufs lends connections their write buffers for one batch (cork.go).
	bufs bufPool
	eng  Engine
	log  *slog.Logger
	// tokenUses dedups the audit log's token-use records (audit.go).
	tokenUses tokenUses
	now       func() time.Time
	auth      *liveAuth // swapped on a config reload (SetAuth)
	policy    *browserPolicy
	limits    serverLimits
	handler   http.Handler
	metrics   *metrics
	fan       *fanout
	// models keeps recently updated sessions' models for agentMeta.
	models *sessionModels
	// aliases name chat.send's runs by their idempotencyKey (runaliases.go).
	aliases *runAliases
	methods map[string]method
	started time.Time

	// base is the parent of every request and connection context;
	// Shutdown cancels it so long waits end.
	base       context.Context
	cancelBase context.CancelFunc

	mu      sync.Mutex
	http    *http.Server
	serving bool
	closing bool
	conns   map[*conn]struct{}
	// limiter holds each token's request bucket (ratelimit.go).
	limiter *ratelimit.Limiter
	// held are the authenticated HTTP requests in progress (revoke.go).
	held     heldRequests
	connWG   sync.WaitGroup // one per WebSocket handler
	bgWG     sync.WaitGroup // background goroutines (metrics pump)
	stopBG   context.CancelFunc
	shutOnce sync.Once
	shutErr  error
	shutDone chan struct{}
}

// New builds a gateway server. Nothing listens until Serve.
func New(opts Options) (*Server, error) {
	if opts.Engine == nil {
		return nil, errors.New("gateway: Engine is required")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if opts.HandshakeTimeout <= 0 {
		opts.HandshakeTimeout = DefaultHandshakeTimeout
	}
	if opts.TickInterval <= 0 {
		opts.TickInterval = DefaultTickInterval
	}
	if opts.Config != nil {
		if opts.Limits == (config.GatewayLimits{}) {
			opts.Limits = opts.Config.Gateway.Limits
		}
		if opts.AllowedOrigins == nil {
			opts.AllowedOrigins = opts.Config.Gateway.AllowedOrigins
		}
	}
	if opts.MaxPayload <= 0 {
		opts.MaxPayload = MaxPayload(opts.Limits)
	}
	if opts.MaxBufferedBytes <= 0 {
		opts.MaxBufferedBytes = opts.Limits.MaxBufferedBytes
	}
	if opts.PreauthPayload <= 0 {
		opts.PreauthPayload = DefaultPreauthPayload
	}
	if opts.MaxBufferedBytes <= 0 {
		opts.MaxBufferedBytes = DefaultMaxBufferedBytes
	}
	if opts.ShutdownTimeout <= 0 {
		opts.ShutdownTimeout = 10 * time.Second
	}
	s := &Server{
		opts:     opts,
		eng:      opts.Engine,
		log:      opts.Logger,
		now:      opts.Now,
		auth:     newLiveAuth(newAuthenticator(opts.Token, opts.Tokens)),
		policy:   newBrowserPolicy(opts.AllowedOrigins),
		limits:   resolveLimits(opts.Limits),
		limiter:  ratelimit.New(map[ratelimit.Scope]ratelimit.Limit{ratelimit.ScopeToken: tokenLimit(opts.Limits.RateLimit)}, opts.Now),
		conns:    map[*conn]struct{}{},
		shutDone: make(chan struct{}),
		started:  opts.Now(),
	}
	s.base, s.cancelBase = context.WithCancel(context.Background())
	s.metrics = newMetrics(s)
	s.fan = newFanout()
	s.models = newSessionModels()
	s.aliases = newRunAliases()
	s.methods = s.methodTable()
	s.handler = traceHTTP(s.routes())
	return s, nil
}

// Handler returns the server's HTTP handler (WebSocket, API, MCP, web UI,
// health and metrics). Serve uses it; tests may mount it in httptest.
func (s *Server) Handler() http.Handler { return s.handler }

// TokenRequired reports whether clients must present a token.
func (s *Server) TokenRequired() bool { return s.auth.required() }

// errServeAfterShutdown is Serve's error when called twice or after Shutdown.
var errServeAfterShutdown = errors.New("gateway: Serve called twice or after Shutdown")

// Serve accepts connections on ln until ctx ends or Shutdown is called.
// When ctx ends it shuts down gracefully (bounded by ShutdownTimeout). It
// returns nil after a clean shutdown.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	s.mu.Lock()
	if s.serving || s.closing {
		s.mu.Unlock()
		return errServeAfterShutdown
	}
	s.serving = true
	// No ReadTimeout or WriteTimeout: they would cut off long waits and
	// WebSockets. A body's read is bounded per request (outerware).
	hs := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: s.limits.readHeaderTimeout,
		IdleTimeout:       s.limits.idleTimeout,
		BaseContext:       func(net.Listener) context.Context { return s.base },
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
	}
	s.http = hs
	bgCtx, stop := context.WithCancel(context.Background())
	s.stopBG = stop
	// Added under the lock that Shutdown takes to set closing: a Shutdown
	// that saw serving waits for these, and none waits while they are
	// being added (Add from zero racing Wait, found under -race).
	s.bgWG.Add(2)
	s.mu.Unlock()

	go func() {
		defer s.bgWG.Done()
		s.metrics.pump(bgCtx)
	}()
	go func() {
		defer s.bgWG.Done()
		s.fan.run(bgCtx, s)
	}()

	s.log.Info("gateway listening", "addr", ln.Addr().String(), "auth", s.authMode(),
		"maxConnections", s.limits.maxConns, "maxConnectionsPerAddress", s.limits.maxConnsPerAddr)
	ln = newCapListener(ln, s.limits, s.log)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			<-s.shutDone // Shutdown was called elsewhere; let it finish
			return nil
		}
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.opts.ShutdownTimeout)
		defer cancel()
		return errors.Join(fmt.Errorf("gateway: serve: %w", err), s.Shutdown(sctx))
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.opts.ShutdownTimeout)
		defer cancel()
		err := s.Shutdown(sctx)
		<-errc
		return err
	}
}

// Shutdown stops accepting connections, tells every WebSocket client with
// a `shutdown` event, closes them (http.Server.Shutdown does not track
// hijacked connections), ends pending waits and waits for every handler,
// or until ctx ends. Runs keep going in the engine; closing the engine is
// the caller's job. Calling Shutdown again returns the first result.
func (s *Server) Shutdown(ctx context.Context) error {
	s.shutOnce.Do(func() {
		defer close(s.shutDone)
		s.mu.Lock()
		s.closing = true
		conns := make([]*conn, 0, len(s.conns))
		for c := range s.conns {
			conns = append(conns, c)
		}
		hs := s.http
		stop := s.stopBG
		s.mu.Unlock()

		// Tell clients first, in parallel: a close handshake with an
		// unresponsive peer may take seconds. When ctx ends first, drop
		// the connections without ceremony.
		var wg sync.WaitGroup
		for _, c := range conns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c.shutdown("gateway shutting down")
			}()
		}
		if waitGroup(ctx, &wg) != nil {
			for _, c := range conns {
				_ = c.ws.CloseNow()
			}
			wg.Wait()
		}
		s.cancelBase()
		var errs []error
		if hs != nil {
			if err := hs.Shutdown(ctx); err != nil {
				errs = append(errs, fmt.Errorf("gateway: http shutdown: %w", err))
			}
		}
		if err := waitGroup(ctx, &s.connWG); err != nil {
			errs = append(errs, fmt.Errorf("gateway: waiting for websocket connections: %w", err))
		}
		if stop != nil {
			stop()
		}
		if err := waitGroup(ctx, &s.bgWG); err != nil {
			errs = append(errs, fmt.Errorf("gateway: waiting for background work: %w", err))
		}
		s.shutErr = errors.Join(errs...)
		s.log.Info("gateway stopped")
	})
	select {
	case <-s.shutDone:
		return s.shutErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

// waitGroup waits for wg or ctx.
func waitGroup(ctx context.Context, wg *sync.WaitGroup) error {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// isClosing reports whether Shutdown has begun.
func (s *Server) isClosing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing
}

func (s *Server) authMode() string {
	if s.auth.required() {
		return "token"
	}
	return "none"
}

// Listen opens a TCP listener on addr after checking that a listener
// reachable from other hosts has a token (see CheckListenAddr).
func (s *Server) Listen(ctx context.Context, addr string) (net.Listener, error) {
	if err := CheckListenAddr(addr, s.auth.required()); err != nil {
		return nil, err
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("gateway: listen %s: %w", addr, err)
	}
	return ln, nil
}

// ListenAndServe listens on addr (see Listen) and serves until ctx ends.
func (s *Server) ListenAndServe(ctx context.Context, addr string) error {
	ln, err := s.Listen(ctx, addr)
	if err != nil {
		return err
	}
	return s.Serve(ctx, ln)
}

// CheckListenAddr refuses a non-loopback address when no token is
// configured: without one, anyone who can reach the port could drive the
// agents.
func CheckListenAddr(addr string, tokenConfigured bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("gateway: listen address %q: %w (want host:port, e.g. 127.0.0.1:18789)", addr, err)
	}
	if tokenConfigured || isLoopbackHost(host) {
		return nil
	}
	shown := host
	if shown == "" {
		shown = "all interfaces"
	}
	return fmt.Errorf("gateway: refusing to listen on %s (%s) without an auth token: set gateway.auth.token or SWITCHBOARD_GATEWAY_TOKEN, or listen on 127.0.0.1", addr, shown)
}

func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// MaxPayload is the largest WS frame and HTTP request body (/api, /mcp) a
// gateway with limits l accepts: gateway.limits.maxPayload, else
// DefaultMaxPayload.
func MaxPayload(l config.GatewayLimits) int64 {
	if l.MaxPayload > 0 {
		return l.MaxPayload
	}
	return DefaultMaxPayload
}
