// Package runspec is the spec the engine stores on a run: what the run,
// and the work that follows its end, needs to be carried out after a
// restart. It is written once here and read by every package that starts
// or follows up a run (the engine, sessions_send, sessions_spawn).
package runspec

import (
	"encoding/json"
	"fmt"

	"github.com/switchboard-go/switchboard/internal/delivery"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/exchange"
	"github.com/switchboard-go/switchboard/internal/runs"
	"github.com/switchboard-go/switchboard/internal/subagent"
)

// Spec is what the engine keeps on a run so the run, and the work that
// follows it, can be carried out after a restart: the runtime's spec
// (runs.Spec: the user message, prelude, steer, joined run and payer —
// one type, its fields inline in the stored JSON) and what only the
// engine reads.
type Spec struct {
	runs.Spec
	// System is injected after the agent's system prompt.
	System   string `json:"system,omitempty"`
	Model    string `json:"model,omitempty"`
	Thinking string `json:"thinking,omitempty"`
	// Chain lists the sessions an inter-session message passed through
	// before reaching this run (loop safety).
	Chain []string        `json:"chain,omitempty"`
	A2A   *exchange.State `json:"a2a,omitempty"`
	Spawn *subagent.Spec  `json:"spawn,omitempty"`
	// Fingerprint digests the parameters that define the work of a run
	// created under an idempotency key (package idempotency).
	Fingerprint string `json:"fingerprint,omitempty"`
	// Deliver is where a chat run's reply is delivered when it ends
	// (api.ChatRequest.Deliver); nil for no delivery.
	Deliver *delivery.Target `json:"deliver,omitempty"`
	// TraceParent is the W3C trace context of the work that created the
	// run (tracing on): the run's span, and the runs that follow from it,
	// join that trace, after a queue wait or a restart too.
	TraceParent string `json:"traceparent,omitempty"`
}

// Encode is the stored form of s.
func Encode(s Spec) (json.RawMessage, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encode run spec: %w", err)
	}
	return b, nil
}

// Runtime is the runtime's part of s (runs.Spec), as decoding
// Encode(s) gives it.
func (s Spec) Runtime() runs.Spec { return s.Spec }

// Decode reads the spec stored on r. A spec that does not decode is
// an error naming the run: a run is never carried out, or followed up, on
// a zero spec.
func Decode(r domain.Run) (Spec, error) {
	var s Spec
	if len(r.Spec) > 0 {
		if err := json.Unmarshal(r.Spec, &s); err != nil {
			return Spec{}, fmt.Errorf("run %s: stored run spec does not decode: %w", r.ID, err)
		}
	}
	return s, nil
}

// Plan is the part of a Spec that planning a run reads (Prepare):
// decoding only it skips the user message, the prelude and the exchange
// state, which every run's start would otherwise decode a second time
// (the runtime decodes the messages it appends).
type Plan struct {
	System   string   `json:"system,omitempty"`
	Model    string   `json:"model,omitempty"`
	Thinking string   `json:"thinking,omitempty"`
	Chain    []string `json:"chain,omitempty"`
}

// DecodePlan reads the Plan stored on r, with Decode's error.
// A run whose end has follow-up work (FollowsUp) has its whole spec
// decoded, so one that would fail at its end fails before it runs.
func DecodePlan(r domain.Run) (Plan, error) {
	if FollowsUp(r.Kind) {
		full, err := Decode(r)
		if err != nil {
			return Plan{}, err
		}
		return Plan{System: full.System, Model: full.Model, Thinking: full.Thinking, Chain: full.Chain}, nil
	}
	var s Plan
	if len(r.Spec) > 0 {
		if err := json.Unmarshal(r.Spec, &s); err != nil {
			return Plan{}, fmt.Errorf("run %s: stored run spec does not decode: %w", r.ID, err)
		}
	}
	return s, nil
}

// FollowsUp reports whether runs of kind have follow-up work at their end
// (the engine's runs.Hooks.Finished), read from their spec.
func FollowsUp(kind domain.RunKind) bool {
	switch kind {
	case domain.RunKindSend, domain.RunKindReply, domain.RunKindAnnounce, domain.RunKindSubagent:
		return true
	}
	return false
}
