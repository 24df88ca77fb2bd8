package gateway

import (
	"context"
	"slices"
	"strings"

	"github.com/switchboard-go/switchboard/internal/config"
)

// modelChoice is one model of models.list in OpenClaw's shape (its
// ModelChoice: id, name and provider, the rest optional; a closed object).
type modelChoice struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Provider string `json:"provider"`
}

// modelsListParams are OpenClaw's models.list params. The catalog here is
// the configured agents' models, so the filters that ask for another view
// of OpenClaw's provider catalog (view, includeDetails, refresh, …) change
// nothing and are accepted as OpenClaw accepts them.
type modelsListParams struct {
	AgentID  string `json:"agentId"`
	Provider string `json:"provider"`
}

// mModelsList answers OpenClaw's models.list ({models: [...]}) with the
// models of the agents agents.list lists (agents.list[].model, else
// agents.defaults.model), each once, in provider then id order; with
// agentId, that agent's only; with provider, that provider's only. OpenClaw's
// Control UI fills its model picker from it.
func (s *Server) mModelsList(ctx context.Context, cl *call) (any, error) {
	var p modelsListParams
	if err := decodeParams(cl.method, cl.params, &p); err != nil {
		return nil, err
	}
	list, err := s.eng.AgentsList(ctx, cl.principal(""))
	if err != nil {
		return nil, err
	}
	seen := map[modelChoice]bool{}
	models := []modelChoice{}
	for _, a := range list.Agents {
		if !a.Configured || a.Model == "" || (p.AgentID != "" && a.ID != strings.TrimSpace(p.AgentID)) {
			continue
		}
		m := choiceOf(a.Model)
		if seen[m] || (p.Provider != "" && m.Provider != strings.TrimSpace(p.Provider)) {
			continue
		}
		seen[m] = true
		models = append(models, m)
	}
	slices.SortFunc(models, func(a, b modelChoice) int {
		if c := strings.Compare(a.Provider, b.Provider); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return map[string]any{"models": models}, nil
}

// choiceOf is the model choice of a model reference "provider/model"; a
// provider alone ("script") serves a model of its own name, as the
// Control UI shows it ("script/script").
func choiceOf(ref string) modelChoice {
	provider, model := config.SplitModelRef(ref)
	if model == "" {
		model = provider
	}
	return modelChoice{ID: model, Name: model, Provider: provider}
}
