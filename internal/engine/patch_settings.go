package engine

import (
	"github.com/switchboard-go/switchboard/internal/api"
)

// patchSet is what a sessions.patch stores: nil leaves a setting as it is,
// "" clears it (the request's null).
type patchSet struct {
	label, sendPolicy, model, thinking, verbose *string
}

// patchSettings checks a patch's values with api.PatchRequest.Normalize
// (the one normalisation every surface's patch goes through: null clears,
// a value — "" and blanks included — must be valid for its field), then
// what only the engine knows: that a model exists in the registry.
func (e *Engine) patchSettings(p api.PatchRequest) (patchSet, error) {
	p, err := p.Normalize()
	if err != nil {
		return patchSet{}, err
	}
	if v, ok := p.Model.Value(); ok {
		if _, _, err := e.models.Resolve(v); err != nil {
			return patchSet{}, err
		}
	}
	return patchSet{
		label:      stored(p.Label),
		sendPolicy: stored(p.SendPolicy),
		model:      stored(p.Model),
		thinking:   stored(p.ThinkingLevel),
		verbose:    stored(p.VerboseLevel),
	}, nil
}

// stored is the setting to store for a normalized n: nil when absent, ""
// when null, else its value.
func stored(n api.Nullable) *string {
	if !n.Given() {
		return nil
	}
	v, _ := n.Value() // "" for null
	return &v
}
