package tools

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"sync"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// tool is one session tool: its arguments, their limits and enums, and
// the call that turns decoded arguments into one api.Service call.
type tool struct {
	name        string
	description string
	args        reflect.Type
	limits      map[string]api.Limit
	enums       map[string][]string
	// hidden parameters are accepted but not in the schema.
	hidden []string
	call   func(ctx context.Context, svc api.Service, p api.Principal, raw json.RawMessage) (api.ToolOutcome, error)
}

// all returns every tool, in the order of api.AllTools.
func all() []*tool {
	return []*tool{listTool(), historyTool(), sendTool(), spawnTool(), agentsTool(), subagentsTool(), runsWaitTool(), yieldTool(), statusTool(), searchTool()}
}

func byName(name string) *tool {
	for _, t := range all() {
		if t.name == name {
			return t
		}
	}
	return nil
}

// specs generates every tool's spec once: the schemas depend only on the
// argument structs and the api limits, which are fixed at build time, and
// every run asks for them.
var specs = sync.OnceValue(func() map[string]domain.ToolSpec {
	out := map[string]domain.ToolSpec{}
	for _, t := range all() {
		schema, err := schemaOf(t)
		if err != nil {
			// The schema tests catch a broken argument struct.
			panic(err)
		}
		out[t.name] = domain.ToolSpec{Name: t.name, Description: t.description, InputSchema: schema}
	}
	return out
})

// Specs returns the specs (name, description, input schema) of the named
// tools, or of every tool when names is empty, in a stable order. Unknown
// names are left out.
func Specs(names ...string) []domain.ToolSpec {
	if len(names) == 0 {
		names = api.AllTools()
	}
	all := specs()
	out := make([]domain.ToolSpec, 0, len(names))
	for _, n := range names {
		if s, ok := all[n]; ok {
			out = append(out, s)
		}
	}
	return out
}

// Call calls the tool name with JSON arguments as p, through svc. Unknown
// tools, bad arguments and refusals are error outcomes, never Go errors:
// every surface shows them the same way.
func Call(ctx context.Context, svc api.Service, p api.Principal, name string, raw json.RawMessage) api.ToolOutcome {
	t := byName(name)
	if t == nil {
		return Failure(domain.Invalid("tool not available: %s", name))
	}
	out, err := t.call(ctx, svc, p, raw)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return Failure(domain.Errorf(domain.CodeUnavailable, "cancelled"))
		}
		return Failure(err)
	}
	return out
}

// Failure is the outcome of a failed call: status "forbidden" for a
// refusal, "error" otherwise with the machine-readable error code
// (domain.Code*) the other surfaces give for the same refusal, and the
// client-safe message.
func Failure(err error) api.ToolOutcome {
	code := domain.ErrorCode(err)
	p := api.ErrorPayload{Status: "error", Error: domain.ErrorMessage(err), Code: code}
	if code == domain.CodeForbidden {
		// OpenClaw's refusal payload: the status is the code.
		p.Status, p.Code = "forbidden", ""
	}
	return api.ToolOutcome{Payload: p, IsError: true}
}

// ok is a successful outcome.
func ok(payload any) (api.ToolOutcome, error) { return api.ToolOutcome{Payload: payload}, nil }

// limitOf applies l to a given number, leaving absent ones at zero.
func limitOf(given map[string]bool, l api.Limit, v float64) (int, error) {
	if !given[l.Name] {
		return 0, nil
	}
	n, err := l.ApplyFloat(v)
	return int(n), err
}

// charsOf refuses a given string longer than l allows.
func charsOf(given map[string]bool, l api.Limit, v string) error {
	if !given[l.Name] {
		return nil
	}
	return l.CheckChars(v)
}
