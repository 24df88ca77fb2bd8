package engine

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/switchboard-go/switchboard/internal/config"
)

// The parts of the configuration a running engine takes on Reload; every
// other key keeps its value until a restart (the session key layout, the
// runtime's lanes and steps, model providers, channels, the sub-agent
// limits, attachments, the agents' ids and workspaces). Sandboxes are live
// so that turning one on covers the agent's existing sessions at once: a
// row's flag can only add the sandbox (policy.Sandboxed), never lift it.
// Engine code that reads one of these per call reads it through conf().
var liveKeys = []string{
	"session.sendPolicy",
	"session.owners",
	"tools.sessions.visibility",
	"tools.agentToAgent",
	"agents.defaults.model",
	"agents.list[].model",
	"agents.list[].systemPrompt",
	"agents.list[].tools",
	"agents.defaults.sandbox",
	"agents.list[].sandbox",
}

// LiveKeys lists the configuration keys Reload applies to a running
// engine (the rest needs a restart).
func LiveKeys() []string { return slices.Clone(liveKeys) }

// conf is the configuration in effect: the one the engine was built with,
// with the live keys of the last Reload.
func (e *Engine) conf() *config.Config {
	if c := e.live.Load(); c != nil {
		return c
	}
	return e.cfg
}

// Reload applies the live keys of next (a validated configuration) to the
// running engine, atomically: a call sees the old values or the new ones,
// never a mix. It returns the live keys that changed and the keys that
// changed but keep their old value until a restart. A model reference the
// engine's providers cannot resolve refuses the whole reload.
func (e *Engine) Reload(next *config.Config) (applied, needRestart []string, err error) {
	cur := e.conf()
	eff := *cur
	eff.Session.SendPolicy = next.Session.SendPolicy
	eff.Session.Owners = next.Session.Owners
	eff.Tools.Sessions.Visibility = next.Tools.Sessions.Visibility
	eff.Tools.AgentToAgent = next.Tools.AgentToAgent
	eff.Agents.Defaults.Model = next.Agents.Defaults.Model
	eff.Agents.Defaults.Sandbox = next.Agents.Defaults.Sandbox
	if sameAgents(cur.Agents.List, next.Agents.List) {
		eff.Agents.List = make([]config.AgentConfig, len(cur.Agents.List))
		for i, a := range cur.Agents.List {
			n := next.Agents.List[i]
			a.Model, a.SystemPrompt, a.Tools, a.Sandbox = n.Model, n.SystemPrompt, n.Tools, n.Sandbox
			eff.Agents.List[i] = a
		}
	}
	for _, id := range eff.AgentIDs() {
		ref := eff.AgentModel(id)
		if _, _, err := e.models.Resolve(ref); err != nil {
			return nil, nil, fmt.Errorf("agent %s: model %q: %w (models.providers changes need a restart)", id, ref, err)
		}
	}
	applied = diffKeys(cur, &eff)
	needRestart = diffKeys(&eff, next)
	e.live.Store(&eff)
	e.auditReload(applied, needRestart)
	return applied, needRestart, nil
}

// sameAgents reports whether two agent lists name the same agents in the
// same order with the same restart-only fields.
func sameAgents(a, b []config.AgentConfig) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		x.Model, x.SystemPrompt, x.Tools, x.Sandbox = "", "", nil, nil
		y.Model, y.SystemPrompt, y.Tools, y.Sandbox = "", "", nil, nil
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}

// diffKeys lists the key paths (two levels deep, as `session.sendPolicy`)
// whose values differ between a and b.
func diffKeys(a, b *config.Config) []string {
	ma, mb := asMap(a), asMap(b)
	var out []string
	for _, top := range unionKeys(ma, mb) {
		sa, _ := ma[top].(map[string]any)
		sb, _ := mb[top].(map[string]any)
		if sa == nil || sb == nil {
			if !reflect.DeepEqual(ma[top], mb[top]) {
				out = append(out, top)
			}
			continue
		}
		for _, k := range unionKeys(sa, sb) {
			if !reflect.DeepEqual(sa[k], sb[k]) {
				out = append(out, top+"."+k)
			}
		}
	}
	return out
}

func asMap(c *config.Config) map[string]any {
	b, _ := json.Marshal(c)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

func unionKeys(a, b map[string]any) []string {
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}
