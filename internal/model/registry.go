// Package model turns model references ("openai/gpt-4.1-mini", "script",
// "ollama/llama3.2") into providers. NewRegistry builds the built-in script
// model, OpenAI, Anthropic and every named provider of models.providers from
// config; Resolve, ValidateThinking and Known answer the runtime and the
// surfaces. The providers themselves live in the sub-packages, and their
// error vocabulary in modelerr.
package model

import (
	"cmp"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/model/anthropic"
	"github.com/switchboard-go/switchboard/internal/model/openai"
	"github.com/switchboard-go/switchboard/internal/model/script"
)

// Built-in provider names and the wire protocols of models.providers.*.api.
const (
	ProviderScript    = script.Name
	ProviderOpenAI    = "openai"
	ProviderAnthropic = "anthropic"

	APIOpenAI    = "openai"
	APIAnthropic = "anthropic"
)

// Defaults for providers that do not set them.
const (
	DefaultMaxRetries     = 2
	DefaultTimeoutSeconds = 120
)

// ThinkingLevels are every thinking level, from none to most.
func ThinkingLevels() []string { return []string{"off", "minimal", "low", "medium", "high"} }

// Registry maps provider names to providers. It is safe for concurrent use.
type Registry struct {
	mu        sync.RWMutex
	providers map[string]entry
}

type entry struct {
	provider domain.Provider
	// models, when set, are the only model ids the provider serves.
	models []string
}

// NewRegistry builds the providers of cfg (nil means no configuration):
//   - script, always, with models.providers.script.rules;
//   - openai: key from models.providers.openai.apiKey or OPENAI_API_KEY, base
//     URL from its baseUrl or OPENAI_BASE_URL, else api.openai.com;
//   - anthropic: likewise with ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL;
//   - every other entry of models.providers, which needs api ("openai" or
//     "anthropic") and baseUrl, and whose key comes from its apiKey only.
//
// A provider without a key is registered all the same (local servers need
// none); its calls go out without credentials — except a built-in one on
// its default public URL, whose calls fail at once saying which key is
// missing (missingKey). getenv reads the environment
// (nil reads nothing); hc carries every provider's requests (nil: a client
// of the registry's own). Errors name the config key path.
func NewRegistry(cfg *config.Config, getenv func(string) string, hc *http.Client) (*Registry, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	if hc == nil {
		hc = &http.Client{}
	}
	var pcs map[string]config.ProviderConfig
	if cfg != nil {
		pcs = cfg.Models.Providers
	}
	r := &Registry{providers: map[string]entry{}}

	sp, err := script.New(pcs[ProviderScript].Rules, time.Now)
	if err != nil {
		return nil, fmt.Errorf("models.providers.script.%w", err)
	}
	r.providers[ProviderScript] = entry{provider: sp}

	builtin := []struct {
		name, api, keyEnv, urlEnv string
	}{
		{ProviderOpenAI, APIOpenAI, "OPENAI_API_KEY", "OPENAI_BASE_URL"},
		{ProviderAnthropic, APIAnthropic, "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"},
	}
	for _, b := range builtin {
		pc := pcs[b.name]
		if pc.API != "" && pc.API != b.api {
			return nil, fmt.Errorf("models.providers.%s.api: must be %q for the built-in %s provider (got %q)", b.name, b.api, b.name, pc.API)
		}
		pc.API = b.api
		if pc.APIKey == "" {
			pc.APIKey = getenv(b.keyEnv)
		}
		if pc.BaseURL == "" {
			pc.BaseURL = getenv(b.urlEnv)
		}
		if err := r.add(b.name, pc, hc); err != nil {
			return nil, err
		}
		if pc.APIKey == "" && pc.BaseURL == "" {
			e := r.providers[b.name]
			e.provider = missingKey{Provider: e.provider, keyEnv: b.keyEnv}
			r.providers[b.name] = e
		}
	}

	names := make([]string, 0, len(pcs))
	for name := range pcs {
		if name != ProviderScript && name != ProviderOpenAI && name != ProviderAnthropic {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		pc := pcs[name]
		path := "models.providers." + name
		switch {
		case name == "" || strings.ContainsAny(name, "/ \t"):
			return nil, fmt.Errorf("models.providers: provider name %q must be non-empty without '/' or spaces", name)
		case pc.API != APIOpenAI && pc.API != APIAnthropic:
			return nil, fmt.Errorf("%s.api: must be %q or %q (got %q)", path, APIOpenAI, APIAnthropic, pc.API)
		case pc.BaseURL == "":
			return nil, fmt.Errorf("%s.baseUrl: required for a provider that is not built in", path)
		case len(pc.Rules) > 0:
			return nil, fmt.Errorf("%s.rules: only the script provider takes rules", path)
		}
		if err := r.add(name, pc, hc); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// add builds and registers an HTTP provider from its config entry.
func (r *Registry) add(name string, pc config.ProviderConfig, hc *http.Client) error {
	path := "models.providers." + name
	if pc.BaseURL != "" {
		u, err := url.Parse(pc.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("%s.baseUrl: %q is not an http or https URL", path, pc.BaseURL)
		}
	}
	retries := DefaultMaxRetries
	if pc.MaxRetries != nil {
		retries = *pc.MaxRetries
	}
	if retries < 0 || retries > 10 {
		return fmt.Errorf("%s.maxRetries: %d is out of range (0..10)", path, retries)
	}
	if pc.TimeoutSeconds < 0 {
		return fmt.Errorf("%s.timeoutSeconds: %d is negative", path, pc.TimeoutSeconds)
	}
	timeout := time.Duration(cmp.Or(pc.TimeoutSeconds, DefaultTimeoutSeconds)) * time.Second
	for i, m := range pc.Models {
		if strings.TrimSpace(m) == "" {
			return fmt.Errorf("%s.models[%d]: empty model id", path, i)
		}
	}

	var (
		p   domain.Provider
		err error
	)
	switch pc.API {
	case APIOpenAI:
		p, err = openai.New(openai.Config{Name: name, BaseURL: pc.BaseURL, APIKey: pc.APIKey,
			MaxRetries: retries, Timeout: timeout, HTTPClient: hc, Now: time.Now})
	case APIAnthropic:
		p, err = anthropic.New(anthropic.Config{Name: name, BaseURL: pc.BaseURL, APIKey: pc.APIKey,
			MaxRetries: retries, Timeout: timeout, HTTPClient: hc, Now: time.Now})
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	r.providers[name] = entry{provider: p, models: slices.Clone(pc.Models)}
	return nil
}

// Register adds or replaces a provider under p.Name(). models, when given,
// are the only model ids it serves. Tests use it to plug in fakes.
func (r *Registry) Register(p domain.Provider, models ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.providers[p.Name()] = entry{provider: p, models: slices.Clone(models)}
}

// Resolve returns the provider of a model reference and the model id within
// it. References are "script", "script/<anything>" and "provider/model",
// split on the first '/' (model ids may contain '/'). An unknown provider,
// or a model its config does not list, is a CodeInvalid error listing the
// valid references.
func (r *Registry) Resolve(ref string) (domain.Provider, string, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return nil, "", domain.Invalid("model reference is empty; valid: %s", strings.Join(r.Known(), ", "))
	}
	name, model, hasSlash := strings.Cut(ref, "/")
	if !hasSlash && name == ProviderScript {
		model = ProviderScript
	}
	if hasSlash && model == "" {
		return nil, "", domain.Invalid("model reference %q has no model id after %q", ref, name+"/")
	}
	r.mu.RLock()
	e, ok := r.providers[name]
	r.mu.RUnlock()
	if !ok || model == "" || (len(e.models) > 0 && !slices.Contains(e.models, model)) {
		return nil, "", domain.Invalid("unknown model %q; valid: %s", ref, strings.Join(r.Known(), ", "))
	}
	return e.provider, model, nil
}

// ValidateThinking checks that the model of ref accepts a thinking level
// (off|minimal|low|medium|high; empty means the default and always passes).
func (r *Registry) ValidateThinking(ref, level string) error {
	p, model, err := r.Resolve(ref)
	if err != nil {
		return err
	}
	if level == "" {
		return nil
	}
	if !slices.Contains(ThinkingLevels(), level) {
		return domain.Invalid("invalid thinking level %q (use %s)", level, strings.Join(ThinkingLevels(), "|"))
	}
	supported := p.ThinkingLevels(model)
	if !slices.Contains(supported, level) {
		return domain.Invalid("model %q does not support thinking level %q (supported: %s)", ref, level, strings.Join(supported, ", "))
	}
	return nil
}

// Known describes the valid model references for messages: "script", then
// "openai/<model>" and "anthropic/<model>", then the named providers, each
// with its listed models or "<model>" when any id goes.
func (r *Registry) Known() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, 0, len(r.providers))
	for name := range r.providers {
		names = append(names, name)
	}
	rank := map[string]int{ProviderScript: 0, ProviderOpenAI: 1, ProviderAnthropic: 2}
	sort.Slice(names, func(i, j int) bool {
		ri, iok := rank[names[i]]
		rj, jok := rank[names[j]]
		switch {
		case iok && jok:
			return ri < rj
		case iok != jok:
			return iok
		}
		return names[i] < names[j]
	})
	var out []string
	for _, name := range names {
		e := r.providers[name]
		switch {
		case name == ProviderScript && len(e.models) == 0:
			out = append(out, ProviderScript)
		case len(e.models) == 0:
			out = append(out, name+"/<model>")
		default:
			for _, m := range e.models {
				out = append(out, name+"/"+m)
			}
		}
	}
	return out
}
