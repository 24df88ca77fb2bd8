// Package config holds switchboard's configuration: one typed struct decoded
// strictly from JSON5, with defaults for every key and validation that names
// the key path of every problem.
package config

// Config is the whole configuration file. JSON names follow the reference
// (OpenClaw's config keys) where it names them.
type Config struct {
	Session  SessionConfig  `json:"session"`
	Tools    ToolsConfig    `json:"tools"`
	Agents   AgentsConfig   `json:"agents"`
	Models   ModelsConfig   `json:"models"`
	Gateway  GatewayConfig  `json:"gateway"`
	Runtime  RuntimeConfig  `json:"runtime"`
	Channels ChannelsConfig `json:"channels"`
	// Bindings choose the agent that answers a channel's chats
	// (OpenClaw's `bindings`; see Binding).
	Bindings []Binding `json:"bindings,omitempty"`
	// Store selects the database (docs/deployment.md).
	Store StoreConfig `json:"store"`
	// Transcripts configures the JSONL transcript mirror.
	Transcripts TranscriptsConfig `json:"transcripts"`
	// Replicas tunes gateways sharing a PostgreSQL store (replicas.go).
	Replicas ReplicasConfig `json:"replicas"`
	A2A      A2AConfig      `json:"a2a"`
	// Tracing exports OpenTelemetry traces (tracing.go).
	Tracing TracingConfig `json:"tracing"`
	// Audit is the tamper-evident audit log (audit.go).
	Audit AuditConfig `json:"audit"`
	// Approvals hold agent-to-agent calls for an operator (approvals.go).
	Approvals ApprovalsConfig `json:"approvals"`
}

// A2AConfig is `a2a.*`: the Agent2Agent (A2A) protocol surface.
type A2AConfig struct {
	// Enabled serves agent cards and the A2A JSON-RPC endpoints (default
	// true; false answers 404 on every A2A path).
	Enabled *bool `json:"enabled,omitempty"`
	// Expose lists the agent ids reachable over A2A (default: every
	// configured agent).
	Expose []string `json:"expose,omitempty"`
	// PublicCards lists the exposed agents whose cards anyone may fetch
	// without a token (default: only the default agent's, the one at
	// /.well-known/agent-card.json; "*" makes every exposed agent's card
	// public). Another agent's card needs a gateway token and, without
	// one, answers exactly as an unknown agent does, so agent ids cannot
	// be enumerated.
	PublicCards []string `json:"publicCards,omitempty"`
	// PublicURL is the gateway's base URL as A2A clients reach it (e.g.
	// behind a proxy), written into agent cards; default: the scheme and
	// Host of the request that fetched the card.
	PublicURL string `json:"publicUrl,omitempty"`
	// Remotes are A2A agents elsewhere that sessions_send reaches as
	// `agent:<id>:<rest>` (see A2ARemote).
	Remotes []A2ARemote `json:"remotes,omitempty"`
	// SSRFPolicy governs the gateway's outbound A2A requests (remote
	// agent cards and endpoints).
	SSRFPolicy SSRFPolicy `json:"ssrfPolicy"`
}

// SSRFPolicy is `a2a.ssrfPolicy` (OpenClaw's name for the same policy of
// its browser tool): which targets outbound requests may reach.
type SSRFPolicy struct {
	// DangerouslyAllowPrivateNetwork admits loopback, private and
	// link-local targets (default false: only public addresses). Set it
	// for remotes on the gateway's own network, and in tests.
	DangerouslyAllowPrivateNetwork bool `json:"dangerouslyAllowPrivateNetwork,omitempty"`
}

// Store drivers.
const (
	StoreSQLite   = "sqlite"
	StorePostgres = "postgres"
)

// StoreConfig is `store.*`: where sessions, transcripts, runs and the
// outbox live.
type StoreConfig struct {
	// Driver is "sqlite" (default: <state-dir>/switchboard.db, needs
	// nothing) or "postgres" (one database several gateways can share).
	Driver string `json:"driver"`
	// URL is the PostgreSQL connection URL (postgres://user:pass@host/db),
	// usually "${DATABASE_URL}"; required with the postgres driver, not
	// allowed with sqlite.
	URL string `json:"url,omitempty"`
}

// TranscriptsConfig is `transcripts.*`: the append-only JSONL mirror of
// every transcript (docs/design.md#durability).
type TranscriptsConfig struct {
	// Mirror turns the mirror off when false (default true); list rows then
	// carry no transcriptPath.
	Mirror *bool `json:"mirror,omitempty"`
	// Dir puts the mirror in <dir>/agents/… instead of the state dir: a
	// directory every replica sharing a PostgreSQL store can reach.
	Dir string `json:"dir,omitempty"`
}

// MirrorOn reports whether the JSONL mirror is on (the default).
func (t TranscriptsConfig) MirrorOn() bool { return t.Mirror == nil || *t.Mirror }

// SessionConfig is `session.*`.
type SessionConfig struct {
	// Scope is "per-sender" (default) or "global"; global aliases to main.
	Scope string `json:"scope"`
	// MainKey is the main session's key suffix (default "main").
	MainKey      string            `json:"mainKey"`
	SendPolicy   *SendPolicyConfig `json:"sendPolicy,omitempty"`
	AgentToAgent SessionA2AConfig  `json:"agentToAgent"`
	// Owners are sender ids allowed to use owner-only commands (/send).
	// The local webchat user is always an owner.
	Owners []string `json:"owners,omitempty"`
	// DMScope routes direct chats from channels: "main" (default, the
	// agent's main session), "per-peer", "per-channel-peer" or
	// "per-account-channel-peer" (docs/channels.md).
	DMScope string `json:"dmScope,omitempty"`
	// GroupScope routes group chats: "per-group" (default, one session per
	// chat) or "main".
	GroupScope string `json:"groupScope,omitempty"`
}

// SendPolicyConfig is `session.sendPolicy`.
type SendPolicyConfig struct {
	Rules []SendPolicyRule `json:"rules,omitempty"`
	// Default is "allow" (default) or "deny".
	Default string `json:"default"`
}

// SendPolicyRule is one rule of `session.sendPolicy.rules`.
type SendPolicyRule struct {
	Match  SendPolicyMatch `json:"match"`
	Action string          `json:"action"` // allow|deny (default allow)
}

// SendPolicyMatch holds a rule's criteria; every present one must match.
type SendPolicyMatch struct {
	Channel      string `json:"channel,omitempty"`
	ChatType     string `json:"chatType,omitempty"`
	KeyPrefix    string `json:"keyPrefix,omitempty"`
	RawKeyPrefix string `json:"rawKeyPrefix,omitempty"`
}

// SessionA2AConfig is `session.agentToAgent`.
type SessionA2AConfig struct {
	// MaxPingPongTurns is 0..5, default 5.
	MaxPingPongTurns int `json:"maxPingPongTurns"`
	// MaxHops bounds chains of inter-session sends (default 5).
	MaxHops int `json:"maxHops"`
	// LoopBreaker pauses an edge of the message graph that carries too
	// many agent-to-agent messages (limits.go).
	LoopBreaker LoopBreakerConfig `json:"loopBreaker"`
}

// ToolsConfig is `tools.*`.
type ToolsConfig struct {
	Sessions      SessionsToolsConfig `json:"sessions"`
	AgentToAgent  AgentToAgentConfig  `json:"agentToAgent"`
	Subagents     SubagentToolsConfig `json:"subagents"`
	SessionsSpawn SessionsSpawnConfig `json:"sessions_spawn"`
}

// SessionsToolsConfig is `tools.sessions`.
type SessionsToolsConfig struct {
	// Visibility is self|tree|agent|all, default tree.
	Visibility string `json:"visibility"`
}

// AgentToAgentConfig is `tools.agentToAgent`.
type AgentToAgentConfig struct {
	Enabled bool     `json:"enabled"`
	Allow   []string `json:"allow,omitempty"`
}

// SubagentToolsConfig is `tools.subagents`.
type SubagentToolsConfig struct {
	Tools ToolFilter `json:"tools"`
}

// ToolFilter allows or denies tools by name ("*" globs allowed).
type ToolFilter struct {
	Allow []string `json:"allow,omitempty"`
	Deny  []string `json:"deny,omitempty"`
}

// SessionsSpawnConfig is `tools.sessions_spawn`.
type SessionsSpawnConfig struct {
	Attachments AttachmentsConfig `json:"attachments"`
}

// AttachmentsConfig is `tools.sessions_spawn.attachments`.
type AttachmentsConfig struct {
	Enabled             bool  `json:"enabled"`
	MaxFiles            int   `json:"maxFiles"`      // default 50
	MaxFileBytes        int64 `json:"maxFileBytes"`  // default 1 MiB
	MaxTotalBytes       int64 `json:"maxTotalBytes"` // default 5 MiB
	RetainOnSessionKeep bool  `json:"retainOnSessionKeep"`
}

// AgentsConfig is `agents.*`.
type AgentsConfig struct {
	Defaults AgentDefaults `json:"defaults"`
	List     []AgentConfig `json:"list,omitempty"`
}

// AgentDefaults is `agents.defaults`.
type AgentDefaults struct {
	// Model is the default model reference (default "script").
	Model     string            `json:"model"`
	Subagents SubagentsDefaults `json:"subagents"`
	Sandbox   SandboxDefaults   `json:"sandbox"`
}

// SubagentsDefaults is `agents.defaults.subagents`.
type SubagentsDefaults struct {
	AllowAgents         []string `json:"allowAgents,omitempty"`
	RunTimeoutSeconds   int      `json:"runTimeoutSeconds"`   // default 0 = none
	ArchiveAfterMinutes int      `json:"archiveAfterMinutes"` // default 60
	MaxSpawnDepth       int      `json:"maxSpawnDepth"`       // default 1
	MaxChildrenPerAgent int      `json:"maxChildrenPerAgent"` // default 5
	MaxConcurrent       int      `json:"maxConcurrent"`       // default 8
	Model               string   `json:"model,omitempty"`     // default: the agent's model
	// Budget is the budget of a spawn that asks for none (per field).
	Budget *BudgetConfig `json:"budget,omitempty"`
}

// BudgetConfig is a sub-agent budget default (`…subagents.budget`); zero
// or absent fields are unbounded.
type BudgetConfig struct {
	Tokens  int64   `json:"tokens,omitempty"`
	CostUSD float64 `json:"costUsd,omitempty"`
	Seconds int64   `json:"seconds,omitempty"`
}

// PricingConfig is `models.providers.<name>.pricing`: USD per million
// tokens, for providers that report no cost (costUsd budgets need one).
type PricingConfig struct {
	InputPerMillion  float64 `json:"inputPerMillion"`
	OutputPerMillion float64 `json:"outputPerMillion"`
}

// SandboxDefaults is `agents.defaults.sandbox`.
type SandboxDefaults struct {
	// SessionToolsVisibility is "spawned" (default) or "all".
	SessionToolsVisibility string `json:"sessionToolsVisibility"`
	// Mode is the default sandbox mode of agents: "off" (default) or "all".
	Mode string `json:"mode,omitempty"`
}

// AgentConfig is one entry of `agents.list`.
type AgentConfig struct {
	ID           string          `json:"id"`
	Name         string          `json:"name,omitempty"`
	Default      bool            `json:"default,omitempty"`
	Model        string          `json:"model,omitempty"`
	SystemPrompt string          `json:"systemPrompt,omitempty"`
	Workspace    string          `json:"workspace,omitempty"`
	Subagents    *AgentSubagents `json:"subagents,omitempty"`
	Sandbox      *AgentSandbox   `json:"sandbox,omitempty"`
	Tools        *ToolFilter     `json:"tools,omitempty"`
	// Description says what the agent is for (its A2A agent card).
	Description string `json:"description,omitempty"`
	// Skills are what the agent is good at, published in its A2A card.
	Skills []AgentSkill `json:"skills,omitempty"`
}

// AgentSkill is one entry of `agents.list[].skills`.
type AgentSkill struct {
	ID          string   `json:"id"`
	Name        string   `json:"name,omitempty"`
	Description string   `json:"description,omitempty"`
	Tags        []string `json:"tags,omitempty"`
	Examples    []string `json:"examples,omitempty"`
}

// AgentSubagents is `agents.list[].subagents`.
type AgentSubagents struct {
	// AllowAgents overrides agents.defaults.subagents.allowAgents; an empty
	// list (only the agent itself) differs from an absent one (inherit), so
	// it is never omitted.
	AllowAgents []string `json:"allowAgents"`
	// Budget overrides agents.defaults.subagents.budget for this agent's spawns.
	Budget *BudgetConfig `json:"budget,omitempty"`
}

// AgentSandbox is `agents.list[].sandbox`.
type AgentSandbox struct {
	// Mode is "off" or "all" (every session of the agent is sandboxed).
	Mode string `json:"mode"`
}

// ModelsConfig is `models.*`.
type ModelsConfig struct {
	Providers map[string]ProviderConfig `json:"providers,omitempty"`
}

// ProviderConfig is one entry of `models.providers`. The built-in names are
// "script", "openai" and "anthropic"; any other name needs API and BaseURL.
type ProviderConfig struct {
	// API is "openai" or "anthropic" (the wire protocol).
	API     string `json:"api,omitempty"`
	BaseURL string `json:"baseUrl,omitempty"`
	APIKey  string `json:"apiKey,omitempty"`
	// Models optionally lists the model ids this provider serves; when set,
	// other ids are refused with the list.
	Models []string `json:"models,omitempty"`
	// MaxRetries for retryable errors (429, 5xx, connection); default 2.
	MaxRetries *int `json:"maxRetries,omitempty"`
	// TimeoutSeconds bounds one model call (default 120).
	TimeoutSeconds int `json:"timeoutSeconds,omitempty"`
	// Pricing prices this provider's tokens (costs in usage rollups and
	// costUsd budgets).
	Pricing *PricingConfig `json:"pricing,omitempty"`
	// Rules are the script model's rules (provider "script" only).
	Rules []ScriptRule `json:"rules,omitempty"`
}

// ScriptRule is one rule of the built-in script model (docs/design.md#the-script-model).
type ScriptRule struct {
	When     ScriptWhen      `json:"when"`
	Reply    *string         `json:"reply,omitempty"`
	ToolCall *ScriptToolCall `json:"toolCall,omitempty"`
	Error    *string         `json:"error,omitempty"`
	DelayMs  int             `json:"delayMs,omitempty"`
	// ChunkChars and ChunkMs make the answer stream: it arrives in pieces
	// of ChunkChars characters (default 8 when only ChunkMs is set), ChunkMs
	// apart. Without either the answer arrives whole.
	ChunkChars int `json:"chunkChars,omitempty"`
	ChunkMs    int `json:"chunkMs,omitempty"`
}

// ScriptWhen holds a rule's conditions, each a Go regexp.
type ScriptWhen struct {
	Agent   string `json:"agent,omitempty"`
	Session string `json:"session,omitempty"`
	Role    string `json:"role,omitempty"`
	Message string `json:"message,omitempty"`
	System  string `json:"system,omitempty"`
}

// ScriptToolCall is a rule's tool call action.
type ScriptToolCall struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments,omitempty"`
}

// GatewayConfig is `gateway.*`.
type GatewayConfig struct {
	Listen string            `json:"listen,omitempty"` // default 127.0.0.1:18789
	Auth   GatewayAuthConfig `json:"auth"`
	// AllowedOrigins are browser origins ("https://ui.example.com") allowed
	// to call the gateway besides its own web UI (and loopback origins on a
	// loopback listener). Their hosts are also accepted as Host headers on
	// a loopback listener (a reverse proxy on the same machine).
	AllowedOrigins []string `json:"allowedOrigins,omitempty"`
	// Limits bound connections, timeouts and buffered bytes.
	Limits GatewayLimits `json:"limits"`
	// TrustedProxies are the addresses or CIDR ranges of reverse proxies
	// whose X-Forwarded-* headers are believed (OpenClaw's key); from
	// any other client those headers are ignored.
	TrustedProxies []string `json:"trustedProxies,omitempty"`
	// ControlUI serves OpenClaw's own Control UI build (OpenClaw's keys).
	ControlUI ControlUIConfig `json:"controlUi"`
}

// ControlUIConfig is `gateway.controlUi`: OpenClaw's Control UI, served
// from a build the user names (OpenClaw's npm package ships one in
// dist/control-ui).
type ControlUIConfig struct {
	// Enabled turns serving off when false (default on when Root is set).
	Enabled *bool `json:"enabled,omitempty"`
	// Root is the directory holding the build (its index.html).
	Root string `json:"root,omitempty"`
	// BasePath is the URL prefix it is served under (default /openclaw:
	// switchboard's own web UI keeps /).
	BasePath string `json:"basePath,omitempty"`
}

// On reports whether the Control UI is to be served.
func (c ControlUIConfig) On() bool { return c.Root != "" && (c.Enabled == nil || *c.Enabled) }

// GatewayLimits is `gateway.limits`. Zero means the gateway's default.
type GatewayLimits struct {
	// MaxConnections caps open TCP connections (default: 3/4 of the
	// process's file descriptor limit). Past it a connection is answered
	// 503 "too many connections" and closed.
	MaxConnections int `json:"maxConnections,omitempty"`
	// MaxConnectionsPerAddress caps connections from one client IP (off
	// unless set: load balancers and local benchmarks share one address).
	MaxConnectionsPerAddress int `json:"maxConnectionsPerAddress,omitempty"`
	// ReadHeaderTimeoutSeconds bounds reading a request's headers (default 10).
	ReadHeaderTimeoutSeconds int `json:"readHeaderTimeoutSeconds,omitempty"`
	// ReadTimeoutSeconds bounds reading a request's body (default 60).
	ReadTimeoutSeconds int `json:"readTimeoutSeconds,omitempty"`
	// IdleTimeoutSeconds closes keep-alive connections idle this long
	// (default 60).
	IdleTimeoutSeconds int `json:"idleTimeoutSeconds,omitempty"`
	// MaxPayload bounds one WebSocket frame and one HTTP body, in bytes
	// (default 25 MiB).
	MaxPayload int64 `json:"maxPayload,omitempty"`
	// MaxBufferedBytes bounds the request bytes one WebSocket connection
	// has read but not yet answered (default 50 MiB); past it a request
	// gets a retryable UNAVAILABLE.
	MaxBufferedBytes int64 `json:"maxBufferedBytes,omitempty"`
	// RateLimit bounds the requests of each token of gateway.auth.tokens.
	RateLimit RateLimitConfig `json:"rateLimit"`
}

// RateLimitConfig is `gateway.limits.rateLimit`: a token bucket per
// credential of gateway.auth.tokens (the main token, the operator's own,
// is not limited). Every HTTP request, A2A call and WebSocket request
// takes one; past the bucket a request is refused, retryable.
type RateLimitConfig struct {
	// RequestsPerSecond is each token's sustained rate (default 100; a
	// negative value turns the limit off).
	RequestsPerSecond float64 `json:"requestsPerSecond,omitempty"`
	// Burst is how many requests a token may make at once (default 400).
	Burst int `json:"burst,omitempty"`
	// Session bounds the work started on one session (turns, sends to
	// it, spawns from it), whoever asks; zero: no limit.
	Session ScopeRateLimit `json:"session"`
	// Agent bounds the work started on the sessions of one agent; zero:
	// no limit.
	Agent ScopeRateLimit `json:"agent"`
}

// GatewayAuthConfig is `gateway.auth`.
type GatewayAuthConfig struct {
	Token  string         `json:"token,omitempty"`
	Tokens []TokenBinding `json:"tokens,omitempty"`
}

// TokenBinding is an extra token with narrowed scopes and, optionally, the
// session it is bound to (it is that session on every surface).
type TokenBinding struct {
	// Name names the token in logs and idempotency scopes; when empty the
	// gateway names it tokens[<index>]. Names are unique.
	Name  string `json:"name,omitempty"`
	Token string `json:"token"`
	// Scopes are read|write|admin|approvals. Empty means all for an unbound token and
	// read+write for a token bound to a session.
	Scopes  []string `json:"scopes,omitempty"`
	Session string   `json:"session,omitempty"`
}

// RuntimeConfig is `runtime.*`: lane limits and run bounds.
type RuntimeConfig struct {
	// MaxSteps bounds model calls per run (default 25).
	MaxSteps int        `json:"maxSteps"`
	Lanes    LaneLimits `json:"lanes"`
}

// LaneLimits bounds concurrent runs per lane kind.
type LaneLimits struct {
	Main     int `json:"main"`     // default 64
	Nested   int `json:"nested"`   // default 64
	Subagent int `json:"subagent"` // default 64
}
