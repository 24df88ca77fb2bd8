package cli

import (
	"log/slog"
	"net/http"

	"github.com/switchboard-go/switchboard/internal/a2a"
	"github.com/switchboard-go/switchboard/internal/a2a/wire"
	"github.com/switchboard-go/switchboard/internal/app"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/engine"
	"github.com/switchboard-go/switchboard/internal/gateway"
)

// a2aHandler builds the gateway's A2A surface (nil when a2a.enabled is
// false) and starts its push notifications; stop ends them (before the
// engine closes). The cards read the engine's configuration in effect;
// a2a.* and the agents' descriptions and skills are not live keys, so a
// reload reports them as needing a restart.
func a2aHandler(eng *engine.Engine, cfg *config.Config, log *slog.Logger, version string) (h http.Handler, stop func(), err error) {
	if !cfg.A2AEnabled() {
		return nil, func() {}, nil
	}
	push, err := a2a.NewPushes(a2a.PushOptions{Store: eng.Store(), Subscribe: eng.Subscribe, Poke: eng.PokeOutbox,
		Guard: app.PushGuard(cfg), Logger: log})
	if err != nil {
		return nil, nil, err
	}
	if err := push.Start(); err != nil {
		return nil, nil, err
	}
	return a2a.New(a2a.Options{
		Service:   eng,
		Agents:    func() []a2a.Agent { return A2AAgents(eng.Config()) },
		Principal: gateway.PrincipalOf,
		PublicURL: cfg.A2A.PublicURL,
		// Validated by config: every entry parses.
		TrustedProxies: cfg.Gateway.TrustedProxyPrefixes(),
		Version:        version,
		Logger:         log,
		Push:           push,
	}), push.Stop, nil
}

// A2AAgents are the agents a configuration exposes over A2A, the default
// agent first when it is exposed.
func A2AAgents(cfg *config.Config) []a2a.Agent {
	if !cfg.A2AEnabled() {
		return nil
	}
	def := cfg.DefaultAgentID()
	var out []a2a.Agent
	for _, id := range cfg.A2AExposed() {
		ac, ok := cfg.Agent(id)
		if !ok {
			continue
		}
		a := a2a.Agent{ID: id, Name: ac.Name, Description: ac.Description, Public: cfg.A2ACardPublic(id)}
		for _, sk := range ac.Skills {
			name := sk.Name
			if name == "" {
				name = sk.ID
			}
			a.Skills = append(a.Skills, wire.AgentSkill{ID: sk.ID, Name: name, Description: sk.Description,
				Tags: append([]string{}, sk.Tags...), Examples: sk.Examples})
		}
		if id == def {
			out = append([]a2a.Agent{a}, out...)
		} else {
			out = append(out, a)
		}
	}
	if len(out) > 0 {
		// The well-known card is how clients find the gateway's agent.
		out[0].Public = true
	}
	return out
}
