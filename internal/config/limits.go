package config

import "fmt"

// ScopeRateLimit is a token bucket of one scope of
// gateway.limits.rateLimit (session, agent): RequestsPerSecond on
// average, Burst at once. Zero RequestsPerSecond: no limit.
type ScopeRateLimit struct {
	RequestsPerSecond float64 `json:"requestsPerSecond,omitempty"`
	// Burst defaults to ten seconds' worth (at least 1).
	Burst int `json:"burst,omitempty"`
}

// LoopBreakerConfig is `session.agentToAgent.loopBreaker`: more than
// MaxMessages agent-to-agent messages on one edge of the message graph
// (requester session → target session), or around one cycle of it,
// within WindowSeconds pauses that edge until an operator resumes it.
type LoopBreakerConfig struct {
	// MaxMessages is the most messages an edge carries within the
	// window (0, the default: no breaker).
	MaxMessages int `json:"maxMessages,omitempty"`
	// WindowSeconds is the window (default 600).
	WindowSeconds int `json:"windowSeconds,omitempty"`
}

// DefaultLoopWindowSeconds is session.agentToAgent.loopBreaker.windowSeconds' default.
const DefaultLoopWindowSeconds = 600

// BurstOf is l's burst with its default filled in.
func (l ScopeRateLimit) BurstOf() int {
	if l.Burst > 0 {
		return l.Burst
	}
	return max(1, int(l.RequestsPerSecond*10))
}

func (c *Config) checkLimits(v *checker) {
	rl := c.Gateway.Limits.RateLimit
	for name, l := range map[string]ScopeRateLimit{"session": rl.Session, "agent": rl.Agent} {
		path := "gateway.limits.rateLimit." + name
		if l.RequestsPerSecond < 0 {
			v.add(path+".requestsPerSecond", "%g must not be negative", l.RequestsPerSecond)
		}
		if l.Burst < 0 {
			v.add(path+".burst", "%d must not be negative", l.Burst)
		}
	}
	lb := c.Session.AgentToAgent.LoopBreaker
	if lb.MaxMessages < 0 {
		v.add("session.agentToAgent.loopBreaker.maxMessages", "%d must not be negative", lb.MaxMessages)
	}
	if lb.WindowSeconds < 0 || lb.WindowSeconds > 7*24*3600 {
		v.add("session.agentToAgent.loopBreaker.windowSeconds", "%s", fmt.Sprintf("%d must be between 0 and 604800", lb.WindowSeconds))
	}
}
