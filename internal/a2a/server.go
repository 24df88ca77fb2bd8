package a2a

import (
	"log/slog"
	"net/http"
	"net/netip"
	"strings"

	"github.com/switchboard-go/switchboard/internal/a2a/wire"
	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// Service is what the A2A surface needs: the api.Service every call goes
// through, and the engine's event feed for streamed task updates.
type Service interface {
	api.Service
	Subscribe(buffer int) (<-chan domain.Event, func())
}

// Agent is one agent served over A2A, as its card shows it.
type Agent struct {
	ID          string
	Name        string
	Description string
	Skills      []wire.AgentSkill
	// Public serves the agent's card without a credential
	// (a2a.publicCards). Without one, every other agent answers exactly
	// as an unknown id does, so agent ids cannot be enumerated.
	Public bool
}

// Options configure a Server.
type Options struct {
	Service Service
	// Agents returns the agents served over A2A, the default agent first
	// (its card is the one at /.well-known/agent-card.json). It is called
	// per request.
	Agents func() []Agent
	// Principal returns the principal the gateway authenticated for a
	// JSON-RPC request; ok false answers 401.
	Principal func(*http.Request) (api.Principal, bool)
	// PublicURL is the base URL clients reach the gateway at (a2a.publicUrl);
	// empty derives it from each card request.
	PublicURL string
	// TrustedProxies are the addresses (gateway.trustedProxies) whose
	// X-Forwarded-Proto is believed when deriving the base URL; from any
	// other client the header is ignored.
	TrustedProxies []netip.Prefix
	// Push serves push notification configs and sends task updates to
	// them (nil: push notifications are not supported, and the cards say
	// so).
	Push *Pushes
	// Version is the software version shown as each card's version.
	Version string
	Logger  *slog.Logger
}

// Paths of the A2A surface.
const (
	// AgentsPrefix is the root of the per-agent paths: the JSON-RPC
	// endpoint is AgentsPrefix+<id> and its card is
	// AgentsPrefix+<id>+wire.CardPath.
	AgentsPrefix = "/a2a/agents/"
)

// Server serves the A2A surface. It is an http.Handler for
// /.well-known/agent-card.json and everything under /a2a/.
type Server struct {
	opts Options
	log  *slog.Logger
}

// New builds a Server.
func New(opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Agents == nil {
		opts.Agents = func() []Agent { return nil }
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	return &Server{opts: opts, log: opts.Logger}
}

// IsCardRequest reports whether r fetches an agent card: a card needs no
// credential when it is public (they say how to authenticate), everything
// else needs one.
func IsCardRequest(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	return r.URL.Path == wire.CardPath || (strings.HasPrefix(r.URL.Path, AgentsPrefix) && strings.HasSuffix(r.URL.Path, wire.CardPath))
}

// ServeHTTP routes card requests and JSON-RPC calls.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	if path == wire.CardPath {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "the agent card takes GET", http.StatusMethodNotAllowed)
			return
		}
		agents := s.opts.Agents()
		if len(agents) == 0 {
			http.Error(w, "no agent is exposed over A2A", http.StatusNotFound)
			return
		}
		s.serveCard(w, r, agents[0])
		return
	}
	rest, ok := strings.CutPrefix(path, AgentsPrefix)
	if !ok {
		http.Error(w, "no A2A route "+path+" (agents are under "+AgentsPrefix+"<id>)", http.StatusNotFound)
		return
	}
	id, tail, _ := strings.Cut(rest, "/")
	agent, found := s.agent(id)
	_, authed := s.principal(r)
	rpc := r.Method == http.MethodPost && tail == ""
	if rpc && !authed {
		// Every id alike: the credential is asked for before the agent
		// is looked at.
		s.serveRPC(w, r, Agent{})
		return
	}
	if !found || (!agent.Public && !authed) {
		// A hidden agent and an unknown id get the same answer, byte for
		// byte: it does not repeat the id.
		msg := noAgent
		if rpc {
			// A JSON-RPC client with a wrong URL reads the reason.
			WriteRefusal(w, http.StatusNotFound, domain.CodeNotFound, msg)
			return
		}
		http.Error(w, msg, http.StatusNotFound)
		return
	}
	switch {
	case "/"+tail == wire.CardPath && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		s.serveCard(w, r, agent)
	case tail == "" && r.Method == http.MethodPost:
		s.serveRPC(w, r, agent)
	case tail == "":
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "the A2A JSON-RPC endpoint takes POST", http.StatusMethodNotAllowed)
	default:
		http.Error(w, "no A2A route "+path, http.StatusNotFound)
	}
}

// noAgent answers a request for an agent that is not exposed, or whose
// card is not public and the request has no credential.
const noAgent = "no agent with this id is exposed over A2A (agents are under " + AgentsPrefix + "<id>)"

// agent finds an exposed agent by id (case-insensitive).
func (s *Server) agent(id string) (Agent, bool) {
	id = strings.ToLower(strings.TrimSpace(id))
	for _, a := range s.opts.Agents() {
		if strings.ToLower(a.ID) == id {
			return a, true
		}
	}
	return Agent{}, false
}

// principal is the caller of r.
func (s *Server) principal(r *http.Request) (api.Principal, bool) {
	if s.opts.Principal == nil {
		return api.Principal{}, false
	}
	return s.opts.Principal(r)
}

func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}
