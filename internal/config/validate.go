package config

import (
	"fmt"
	"math"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/switchboard-go/switchboard/internal/controlui"
	"github.com/switchboard-go/switchboard/internal/sessionkey"
)

// Problem is one thing wrong with a config: the key path (as written in the
// file, e.g. agents.list[2].id) and what is wrong with it.
type Problem struct {
	Path    string
	Message string
}

func (p Problem) String() string {
	if p.Path == "" {
		return p.Message
	}
	return p.Path + ": " + p.Message
}

// ValidationError lists every problem found in a config, in key order.
type ValidationError struct {
	Problems []Problem
}

// Error prints one problem per line.
func (e *ValidationError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// Validate checks the whole config and returns a *ValidationError holding
// every problem, or nil.
func (c *Config) Validate() error {
	if c == nil {
		return &ValidationError{Problems: []Problem{{Message: "no config"}}}
	}
	if p := c.problems(nil); len(p) > 0 {
		return &ValidationError{Problems: p}
	}
	return nil
}

// Limits of ranged keys.
const (
	MaxPingPongTurns       = 5
	MaxHops                = 50
	MaxSpawnDepth          = 5
	MaxChildrenPerAgent    = 100
	MaxConcurrentSubagents = 1000
	MaxSteps               = 1000
	MaxDelayMs             = 10 * 60 * 1000
	// MaxChunkChars and MaxChunkMs bound a script rule's streaming.
	MaxChunkChars      = 1 << 20
	MaxChunkMs         = 60 * 1000
	MaxProviderRetries = 10
	// MaxRunTimeoutSeconds bounds a sub-agent's runTimeoutSeconds, the
	// config default and the sessions_spawn parameter alike (a week):
	// api.SpawnRunTimeout reads it. Past it the run's deadline would
	// overflow a time.Duration and fire at once.
	MaxRunTimeoutSeconds = 604_800
	// MaxArchiveAfterMinutes bounds agents.defaults.subagents.archiveAfterMinutes
	// (a year; 0 never archives). Past it the archive time would overflow
	// and archive a child as soon as it ends.
	MaxArchiveAfterMinutes = 525_600
	// MaxAttachmentFiles bounds tools.sessions_spawn.attachments.maxFiles:
	// a spawn carries at most this many attachments (api.SpawnAttachments,
	// OpenClaw's schema), so a larger maxFiles could never be used.
	MaxAttachmentFiles = 50
)

// checker collects problems. Paths in skip already have a decode problem;
// problems at, under or above them are consequences (a value that did not
// decode was left unset) and are not reported.
type checker struct {
	problems []Problem
	skip     map[string]bool
}

func (v *checker) add(path, format string, args ...any) {
	for s := range v.skip {
		if related(path, s) {
			return
		}
	}
	v.problems = append(v.problems, Problem{Path: path, Message: fmt.Sprintf(format, args...)})
}

// related reports whether paths a and b are equal or one contains the other.
func related(a, b string) bool {
	return a == b || under(a, b) || under(b, a)
}

// under reports whether path p is inside path parent.
func under(p, parent string) bool {
	rest, ok := strings.CutPrefix(p, parent)
	return ok && parent != "" && (strings.HasPrefix(rest, ".") || strings.HasPrefix(rest, "["))
}

func pathsOf(ps []Problem) map[string]bool {
	m := make(map[string]bool, len(ps))
	for _, p := range ps {
		m[p.Path] = true
	}
	return m
}

func (v *checker) oneOf(path, val string, allowed ...string) {
	if !slices.Contains(allowed, val) {
		v.add(path, "%q is not one of %s", val, strings.Join(allowed, ", "))
	}
}

func (v *checker) between(path string, val, lo, hi int64) {
	if val < lo || val > hi {
		v.add(path, "%d is out of range (%d..%d)", val, lo, hi)
	}
}

func (v *checker) atLeast(path string, val, lo int64) {
	if val < lo {
		v.add(path, "%d is out of range (>= %d)", val, lo)
	}
}

func (v *checker) nonEmpty(path string, list []string) {
	for i, s := range list {
		if strings.TrimSpace(s) == "" {
			v.add(fmt.Sprintf("%s[%d]", path, i), "must not be empty")
		}
	}
}

// problems returns every problem of c in key order.
func (c *Config) problems(skip map[string]bool) []Problem {
	v := &checker{skip: skip}
	c.checkSession(v)
	c.checkTools(v)
	c.checkAgents(v)
	c.checkModels(v)
	c.checkGateway(v)
	c.checkRuntime(v)
	c.checkChannels(v)
	c.checkStore(v)
	c.checkReplicas(v)
	c.checkA2A(v)
	c.checkA2ARemotes(v)
	c.checkTracing(v)
	c.checkAudit(v)
	c.checkLimits(v)
	c.checkApprovals(v)
	return v.problems
}

func (c *Config) checkSession(v *checker) {
	s := c.Session
	v.oneOf("session.scope", s.Scope, ScopePerSender, ScopeGlobal)
	switch {
	case s.MainKey == "":
		v.add("session.mainKey", "must not be empty")
	case strings.Contains(s.MainKey, ":"):
		v.add("session.mainKey", "%q must not contain ':'", s.MainKey)
	case !printable(s.MainKey):
		v.add("session.mainKey", "%q must not contain whitespace or control characters", s.MainKey)
	}
	if p := s.SendPolicy; p != nil {
		v.oneOf("session.sendPolicy.default", p.Default, PolicyAllow, PolicyDeny)
		for i, r := range p.Rules {
			path := fmt.Sprintf("session.sendPolicy.rules[%d]", i)
			v.oneOf(path+".action", r.Action, PolicyAllow, PolicyDeny)
			if ct := r.Match.ChatType; ct != "" {
				v.oneOf(path+".match.chatType", strings.ToLower(ct), "direct", "group", "channel")
			}
		}
	}
	v.between("session.agentToAgent.maxPingPongTurns", int64(s.AgentToAgent.MaxPingPongTurns), 0, MaxPingPongTurns)
	v.between("session.agentToAgent.maxHops", int64(s.AgentToAgent.MaxHops), 1, MaxHops)
	v.nonEmpty("session.owners", s.Owners)
}

func (c *Config) checkTools(v *checker) {
	t := c.Tools
	v.oneOf("tools.sessions.visibility", t.Sessions.Visibility, "self", "tree", "agent", "all")
	v.nonEmpty("tools.agentToAgent.allow", t.AgentToAgent.Allow)
	v.nonEmpty("tools.subagents.tools.allow", t.Subagents.Tools.Allow)
	v.nonEmpty("tools.subagents.tools.deny", t.Subagents.Tools.Deny)
	a := t.SessionsSpawn.Attachments
	v.between("tools.sessions_spawn.attachments.maxFiles", int64(a.MaxFiles), 1, MaxAttachmentFiles)
	v.atLeast("tools.sessions_spawn.attachments.maxFileBytes", a.MaxFileBytes, 1)
	v.atLeast("tools.sessions_spawn.attachments.maxTotalBytes", a.MaxTotalBytes, 1)
}

func (c *Config) checkAgents(v *checker) {
	d := c.Agents.Defaults
	if d.Model == "" {
		v.add("agents.defaults.model", "must not be empty")
	} else {
		c.checkModelRef(v, "agents.defaults.model", d.Model)
	}
	s := d.Subagents
	c.checkAllowAgents(v, "agents.defaults.subagents.allowAgents", s.AllowAgents)
	v.between("agents.defaults.subagents.runTimeoutSeconds", int64(s.RunTimeoutSeconds), 0, MaxRunTimeoutSeconds)
	v.between("agents.defaults.subagents.archiveAfterMinutes", int64(s.ArchiveAfterMinutes), 0, MaxArchiveAfterMinutes)
	v.between("agents.defaults.subagents.maxSpawnDepth", int64(s.MaxSpawnDepth), 1, MaxSpawnDepth)
	v.between("agents.defaults.subagents.maxChildrenPerAgent", int64(s.MaxChildrenPerAgent), 1, MaxChildrenPerAgent)
	v.between("agents.defaults.subagents.maxConcurrent", int64(s.MaxConcurrent), 1, MaxConcurrentSubagents)
	if s.Model != "" {
		c.checkModelRef(v, "agents.defaults.subagents.model", s.Model)
	}
	checkBudget(v, "agents.defaults.subagents.budget", s.Budget)
	v.oneOf("agents.defaults.sandbox.sessionToolsVisibility", d.Sandbox.SessionToolsVisibility, "spawned", "all")
	if d.Sandbox.Mode != "" {
		v.oneOf("agents.defaults.sandbox.mode", d.Sandbox.Mode, SandboxOff, SandboxAll)
	}

	seen := map[string]int{}
	defaultAt := -1
	for i, a := range c.Agents.List {
		path := fmt.Sprintf("agents.list[%d]", i)
		id := strings.ToLower(a.ID)
		switch {
		case a.ID == "":
			v.add(path+".id", "must not be empty")
		case !sessionkey.ValidAgentID(a.ID):
			v.add(path+".id", "%q must match ^[a-z0-9][a-z0-9_-]{0,63}$", clip(a.ID))
		default:
			if j, dup := seen[id]; dup {
				v.add(path+".id", "duplicate agent id %q (also agents.list[%d].id)", id, j)
			} else {
				seen[id] = i
			}
		}
		if a.Default {
			if defaultAt >= 0 {
				v.add(path+".default", "only one agent may be the default (agents.list[%d] is already)", defaultAt)
			} else {
				defaultAt = i
			}
		}
		if a.Model != "" {
			c.checkModelRef(v, path+".model", a.Model)
		}
		if strings.HasPrefix(a.Workspace, "~") {
			v.add(path+".workspace", "%q: ~ is not expanded; use an absolute path or one relative to the state dir", clip(a.Workspace))
		}
		if a.Subagents != nil {
			c.checkAllowAgents(v, path+".subagents.allowAgents", a.Subagents.AllowAgents)
			checkBudget(v, path+".subagents.budget", a.Subagents.Budget)
		}
		if a.Sandbox != nil && a.Sandbox.Mode != "" {
			v.oneOf(path+".sandbox.mode", a.Sandbox.Mode, SandboxOff, SandboxAll)
		}
		if a.Tools != nil {
			v.nonEmpty(path+".tools.allow", a.Tools.Allow)
			v.nonEmpty(path+".tools.deny", a.Tools.Deny)
		}
	}
}

// checkAllowAgents accepts "*" and agent ids; allow-listed ids need not be
// configured (agents_list shows them with configured:false).
func (c *Config) checkAllowAgents(v *checker, path string, ids []string) {
	for i, id := range ids {
		if id != "*" && !sessionkey.ValidAgentID(id) {
			v.add(fmt.Sprintf("%s[%d]", path, i), "%q is neither \"*\" nor an agent id (^[a-z0-9][a-z0-9_-]{0,63}$)", clip(id))
		}
	}
}

// IsBuiltinProvider reports whether name is a provider that exists without
// configuration: script, openai or anthropic.
func IsBuiltinProvider(name string) bool {
	switch name {
	case ProviderScript, ProviderOpenAI, ProviderAnthropic:
		return true
	}
	return false
}

// SplitModelRef splits a model reference "provider/model" at the first '/'
// ("vllm/meta-llama/Llama-3" is provider vllm, model meta-llama/Llama-3).
// A reference without '/' is a provider alone, model "" ("script").
func SplitModelRef(ref string) (provider, model string) {
	provider, model, _ = strings.Cut(ref, "/")
	return provider, model
}

// checkModelRef checks a model reference: "script" (or "script/<name>"),
// or "provider/model" with a built-in or configured provider and, when the
// provider lists its models, one of them.
func (c *Config) checkModelRef(v *checker, path, ref string) {
	if !printable(ref) {
		v.add(path, "%q must not contain whitespace or control characters", clip(ref))
		return
	}
	provider, model := SplitModelRef(ref)
	p, configured := c.Models.Providers[provider]
	switch {
	case provider == "":
		v.add(path, "%q has no provider: want provider/model (e.g. openai/gpt-4.1-mini) or script", clip(ref))
	case !configured && !IsBuiltinProvider(provider):
		v.add(path, "%q names unknown provider %q (built in: script, openai, anthropic; or configure models.providers.%s)", clip(ref), clip(provider), clip(provider))
	case model == "" && provider != ProviderScript:
		v.add(path, "%q has no model: want provider/model (e.g. openai/gpt-4.1-mini) or script", clip(ref))
	case len(p.Models) > 0 && provider != ProviderScript && !slices.Contains(p.Models, model):
		v.add(path, "model %q is not in %s (%s)", clip(model), joinKey("models.providers", provider)+".models", strings.Join(p.Models, ", "))
	}
}

// validProviderName reports whether name matches
// ^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$: no '/' (model references split there)
// and nothing that needs quoting.
func validProviderName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for i, r := range name {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
		case i > 0 && (r == '_' || r == '.' || r == '-'):
		default:
			return false
		}
	}
	return true
}

func (c *Config) checkModels(v *checker) {
	for _, name := range sortedKeys(c.Models.Providers) {
		p := c.Models.Providers[name]
		path := joinKey("models.providers", name)
		if !validProviderName(name) {
			v.add(path, "provider name must match ^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$ (it is used in provider/model references)")
			continue
		}
		if pr := p.Pricing; pr != nil {
			for _, f := range []struct {
				key string
				val float64
			}{{"inputPerMillion", pr.InputPerMillion}, {"outputPerMillion", pr.OutputPerMillion}} {
				if math.IsNaN(f.val) || f.val < 0 || f.val > MaxPricePerMillion {
					v.add(path+".pricing."+f.key, "must be between 0 and %d (USD per million tokens)", MaxPricePerMillion)
				}
			}
		}
		switch name {
		case ProviderScript:
			if p.API != "" {
				v.add(path+".api", "the script provider is built in and has no api")
			}
		case ProviderOpenAI, ProviderAnthropic:
			if p.API != "" && p.API != name {
				v.add(path+".api", "%q: the built-in %s provider speaks %q", p.API, name, name)
			}
		default:
			if p.API == "" {
				v.add(path+".api", "required for a custom provider (openai or anthropic)")
			} else {
				v.oneOf(path+".api", p.API, APIOpenAI, APIAnthropic)
			}
			if p.BaseURL == "" {
				v.add(path+".baseUrl", "required for a custom provider")
			}
		}
		if p.BaseURL != "" {
			checkURL(v, path+".baseUrl", p.BaseURL)
		}
		v.nonEmpty(path+".models", p.Models)
		if p.MaxRetries != nil {
			v.between(path+".maxRetries", int64(*p.MaxRetries), 0, MaxProviderRetries)
		}
		v.atLeast(path+".timeoutSeconds", int64(p.TimeoutSeconds), 0)
		if len(p.Rules) > 0 && name != ProviderScript {
			v.add(path+".rules", "only the script provider has rules")
			continue
		}
		for i, r := range p.Rules {
			checkRule(v, fmt.Sprintf("%s.rules[%d]", path, i), r)
		}
	}
}

func checkRule(v *checker, path string, r ScriptRule) {
	for _, w := range []struct{ key, re string }{
		{"agent", r.When.Agent}, {"session", r.When.Session}, {"role", r.When.Role},
		{"message", r.When.Message}, {"system", r.When.System},
	} {
		if w.re == "" {
			continue
		}
		if _, err := regexp.Compile(w.re); err != nil {
			v.add(path+".when."+w.key, "invalid regexp: %v", err)
		}
	}
	var actions []string
	if r.Reply != nil {
		actions = append(actions, "reply")
	}
	if r.ToolCall != nil {
		actions = append(actions, "toolCall")
		if strings.TrimSpace(r.ToolCall.Name) == "" {
			v.add(path+".toolCall.name", "must not be empty")
		}
	}
	if r.Error != nil {
		actions = append(actions, "error")
	}
	switch len(actions) {
	case 0:
		v.add(path, "want exactly one of reply, toolCall or error (found none)")
	case 1:
	default:
		v.add(path, "want exactly one of reply, toolCall or error (found %s)", strings.Join(actions, ", "))
	}
	v.between(path+".delayMs", int64(r.DelayMs), 0, MaxDelayMs)
	v.between(path+".chunkChars", int64(r.ChunkChars), 0, MaxChunkChars)
	v.between(path+".chunkMs", int64(r.ChunkMs), 0, MaxChunkMs)
}

func checkURL(v *checker, path, raw string) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		v.add(path, "%q is not an http(s) URL", clip(redactURL(raw)))
	}
}

func (c *Config) checkGateway(v *checker) {
	g := c.Gateway
	if _, port, err := net.SplitHostPort(g.Listen); err != nil {
		v.add("gateway.listen", "%q is not host:port", clip(g.Listen))
	} else if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		v.add("gateway.listen", "%q: port %q is not a number in 0..65535", clip(g.Listen), clip(port))
	}
	if g.Auth.Token != "" && !printable(g.Auth.Token) {
		v.add("gateway.auth.token", "must not contain whitespace or control characters")
	}
	seen := map[string]int{}
	names := map[string]int{}
	keys := c.KeyResolver()
	for i, t := range g.Auth.Tokens {
		path := fmt.Sprintf("gateway.auth.tokens[%d]", i)
		if t.Name != "" {
			name := strings.TrimSpace(t.Name)
			if j, dup := names[name]; dup {
				v.add(path+".name", "repeats gateway.auth.tokens[%d].name", j)
			} else if name == "" || !printable(name) {
				v.add(path+".name", "must not be blank or contain whitespace or control characters")
			} else if name == "operator" {
				v.add(path+".name", `"operator" is reserved for the main token`)
			}
			names[name] = i
		}
		switch {
		case t.Token == "":
			v.add(path+".token", "must not be empty")
		case !printable(t.Token):
			v.add(path+".token", "must not contain whitespace or control characters")
		case t.Token == g.Auth.Token:
			v.add(path+".token", "repeats gateway.auth.token")
		default:
			if j, dup := seen[t.Token]; dup {
				v.add(path+".token", "repeats gateway.auth.tokens[%d].token", j)
			}
			seen[t.Token] = i
		}
		for j, sc := range t.Scopes {
			v.oneOf(fmt.Sprintf("%s.scopes[%d]", path, j), sc, "read", "write", "admin", "approvals")
		}
		if t.Session != "" {
			if _, err := keys.Canonical(t.Session, ""); err != nil {
				v.add(path+".session", "%v", err)
			}
		}
	}
	for i, o := range g.AllowedOrigins {
		if msg := originProblem(o); msg != "" {
			v.add(fmt.Sprintf("gateway.allowedOrigins[%d]", i), "%q %s", clip(o), msg)
		}
	}
	for i, p := range g.TrustedProxies {
		if _, ok := proxyPrefix(p); !ok {
			v.add(fmt.Sprintf("gateway.trustedProxies[%d]", i), "%q is not an IP address or CIDR range", clip(p))
		}
	}
	if g.ControlUI.BasePath != "" {
		if _, err := controlui.NormalizeBasePath(g.ControlUI.BasePath); err != nil {
			v.add("gateway.controlUi.basePath", "%v", strings.TrimPrefix(err.Error(), "gateway.controlUi.basePath "))
		}
	}
	c.checkGatewayLimits(v)
}

// Bounds of gateway.limits.
const (
	MaxGatewayTimeoutSeconds = 24 * 60 * 60
	MaxGatewayPayload        = 1 << 30
	MaxGatewayBufferedBytes  = 16 << 30
)

func (c *Config) checkGatewayLimits(v *checker) {
	l := c.Gateway.Limits
	v.atLeast("gateway.limits.maxConnections", int64(l.MaxConnections), 0)
	v.atLeast("gateway.limits.maxConnectionsPerAddress", int64(l.MaxConnectionsPerAddress), 0)
	v.between("gateway.limits.readHeaderTimeoutSeconds", int64(l.ReadHeaderTimeoutSeconds), 0, MaxGatewayTimeoutSeconds)
	v.between("gateway.limits.readTimeoutSeconds", int64(l.ReadTimeoutSeconds), 0, MaxGatewayTimeoutSeconds)
	v.between("gateway.limits.idleTimeoutSeconds", int64(l.IdleTimeoutSeconds), 0, MaxGatewayTimeoutSeconds)
	v.between("gateway.limits.maxPayload", l.MaxPayload, 0, MaxGatewayPayload)
	v.between("gateway.limits.maxBufferedBytes", l.MaxBufferedBytes, 0, MaxGatewayBufferedBytes)
	if l.MaxPayload > 0 && l.MaxBufferedBytes > 0 && l.MaxBufferedBytes < l.MaxPayload {
		v.add("gateway.limits.maxBufferedBytes", "%d is smaller than gateway.limits.maxPayload (%d): a frame of the largest allowed size could never be accepted", l.MaxBufferedBytes, l.MaxPayload)
	}
}

// originProblem says what is wrong with an allowed origin ("" = nothing):
// it must be scheme://host[:port] with scheme http or https, as a browser
// sends it in the Origin header.
func originProblem(o string) string {
	u, err := url.Parse(o)
	switch {
	case err != nil:
		return "is not a URL"
	case u.Scheme != "http" && u.Scheme != "https":
		return "must start with http:// or https://"
	case u.Host == "" || u.Hostname() == "":
		return "has no host"
	case u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(o, "?"):
		return "must be an origin (scheme://host[:port]), without a user, path, query or fragment"
	}
	return ""
}

func (c *Config) checkRuntime(v *checker) {
	r := c.Runtime
	v.between("runtime.maxSteps", int64(r.MaxSteps), 1, MaxSteps)
	v.atLeast("runtime.lanes.main", int64(r.Lanes.Main), 1)
	v.atLeast("runtime.lanes.nested", int64(r.Lanes.Nested), 1)
	v.atLeast("runtime.lanes.subagent", int64(r.Lanes.Subagent), 1)
}

// printable reports whether s is non-empty and has no whitespace or
// control characters.
func printable(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r == ' ' || !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// Bounds of budget and pricing settings.
const (
	MaxBudgetTokens    = 1_000_000_000
	MaxBudgetCostUSD   = 100_000
	MaxBudgetSeconds   = 604_800
	MaxPricePerMillion = 10_000
)

// checkBudget validates a sub-agent budget default.
func checkBudget(v *checker, path string, b *BudgetConfig) {
	if b == nil {
		return
	}
	v.between(path+".tokens", b.Tokens, 0, MaxBudgetTokens)
	v.between(path+".seconds", b.Seconds, 0, MaxBudgetSeconds)
	if math.IsNaN(b.CostUSD) || b.CostUSD < 0 || b.CostUSD > MaxBudgetCostUSD {
		v.add(path+".costUsd", "must be between 0 and %d (USD)", MaxBudgetCostUSD)
	}
}

func (c *Config) checkA2A(v *checker) {
	known := c.AgentIDs()
	seen := map[string]int{}
	for i, id := range c.A2A.Expose {
		path := fmt.Sprintf("a2a.expose[%d]", i)
		k := strings.ToLower(strings.TrimSpace(id))
		switch {
		case k == "":
			v.add(path, "must not be empty")
		case !slices.Contains(known, k):
			v.add(path, "%q is not a configured agent (agents: %s)", clip(id), strings.Join(known, ", "))
		default:
			if j, dup := seen[k]; dup {
				v.add(path, "repeats a2a.expose[%d]", j)
			}
			seen[k] = i
		}
	}
	exposed := c.A2AExposed()
	for i, id := range c.A2A.PublicCards {
		path := fmt.Sprintf("a2a.publicCards[%d]", i)
		k := strings.ToLower(strings.TrimSpace(id))
		if k != "*" && !slices.Contains(exposed, k) {
			v.add(path, "%q is not an exposed agent (use \"*\" or one of: %s)", clip(id), strings.Join(exposed, ", "))
		}
	}
	if c.A2A.PublicURL != "" {
		checkURL(v, "a2a.publicUrl", c.A2A.PublicURL)
	}
	for i, a := range c.Agents.List {
		ids := map[string]int{}
		for j, sk := range a.Skills {
			path := fmt.Sprintf("agents.list[%d].skills[%d]", i, j)
			id := strings.TrimSpace(sk.ID)
			if id == "" {
				v.add(path+".id", "must not be empty")
				continue
			}
			if k, dup := ids[id]; dup {
				v.add(path+".id", "repeats agents.list[%d].skills[%d].id", i, k)
			}
			ids[id] = j
		}
	}
}
