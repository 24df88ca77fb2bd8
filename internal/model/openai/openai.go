// Package openai is the provider for OpenAI-compatible Chat Completions APIs:
// OpenAI itself and the local or hosted servers that speak the same protocol
// (Ollama, vLLM, llama.cpp, OpenRouter). It wraps the official SDK behind
// domain.Provider so the rest of switchboard never sees SDK types.
package openai

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/model/modelerr"
)

// Defaults of Config.
const (
	DefaultName    = "openai"
	DefaultBaseURL = "https://api.openai.com/v1"
	DefaultTimeout = 120 * time.Second
	// API is the api field of the assistant messages this provider writes.
	API = "openai-completions"
)

// officialHost is the host whose model list we know; any other endpoint may
// serve any model, so it gets every thinking level passed through.
const officialHost = "api.openai.com"

// Config configures one OpenAI-compatible endpoint.
type Config struct {
	// Name is the provider name used in model references (default "openai").
	Name string
	// BaseURL is the API root, up to and including /v1 (default DefaultBaseURL).
	BaseURL string
	// APIKey is sent as a bearer token; empty sends no Authorization header
	// (local servers need none).
	APIKey string
	// MaxRetries is how often a retryable failure (429, 408, 409, 5xx,
	// connection errors) is retried with backoff; the registry defaults it to 2.
	MaxRetries int
	// Timeout bounds one call, retries included (default DefaultTimeout).
	Timeout time.Duration
	// HTTPClient carries the requests (default: a client of its own).
	HTTPClient *http.Client
	// Now stamps the answers (default time.Now).
	Now func() time.Time
}

// Provider calls an OpenAI-compatible Chat Completions endpoint. It is safe
// for concurrent use.
type Provider struct {
	name     string
	official bool
	timeout  time.Duration
	now      func() time.Time
	svc      oai.ChatCompletionService
}

var _ domain.Provider = (*Provider)(nil)

// New checks cfg and returns a provider. It reads no environment: keys and
// URLs come from cfg only, so a key meant for OpenAI never reaches another
// endpoint.
func New(cfg Config) (*Provider, error) {
	if cfg.Name == "" {
		cfg.Name = DefaultName
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%s: baseUrl %q: want an http or https URL", cfg.Name, cfg.BaseURL)
	}
	if cfg.MaxRetries < 0 {
		return nil, fmt.Errorf("%s: maxRetries %d is negative", cfg.Name, cfg.MaxRetries)
	}
	if cfg.Timeout < 0 {
		return nil, fmt.Errorf("%s: timeout %v is negative", cfg.Name, cfg.Timeout)
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	opts := []option.RequestOption{
		option.WithBaseURL(strings.TrimSuffix(cfg.BaseURL, "/") + "/"),
		option.WithHTTPClient(cfg.HTTPClient),
		option.WithMaxRetries(cfg.MaxRetries),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	return &Provider{
		name:     cfg.Name,
		official: strings.EqualFold(u.Hostname(), officialHost),
		timeout:  cfg.Timeout,
		now:      cfg.Now,
		// The service, not oai.NewClient: the client would read OPENAI_*
		// variables from the process environment behind our back.
		svc: oai.NewChatCompletionService(opts...),
	}, nil
}

// Name returns the provider name used in model references.
func (p *Provider) Name() string { return p.name }

// ThinkingLevels lists the levels model accepts. On OpenAI itself only
// reasoning models (o1, o3, o4, gpt-5 families) take a reasoning effort;
// other endpoints may serve anything, so every level is passed through.
func (p *Provider) ThinkingLevels(model string) []string {
	if !p.official || reasoningModel(model) {
		return []string{"off", "minimal", "low", "medium", "high"}
	}
	return []string{"off"}
}

func reasoningModel(model string) bool {
	for _, prefix := range []string{"o1", "o3", "o4", "gpt-5"} {
		if strings.HasPrefix(model, prefix) {
			return true
		}
	}
	return false
}

// Complete sends one Chat Completions request: streamed (stream.go) when
// the caller asks for deltas (req.OnDelta), else in one answer. Errors
// follow package modelerr: they name the provider and the HTTP status.
func (p *Provider) Complete(ctx context.Context, req domain.ModelRequest) (domain.ModelResponse, error) {
	params, err := p.params(req)
	if err != nil {
		return domain.ModelResponse{}, err
	}
	if req.OnDelta != nil {
		return p.stream(ctx, params, req.Model, req.OnDelta)
	}
	callCtx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	var rec modelerr.Recorder
	res, err := p.svc.New(callCtx, params, option.WithMiddleware(rec.Middleware))
	if err != nil {
		return domain.ModelResponse{}, modelerr.Classify(ctx, p.name, p.timeout, &rec, err)
	}
	msg, err := p.message(res, req.Model)
	if err != nil {
		return domain.ModelResponse{}, err
	}
	return domain.ModelResponse{Message: msg}, nil
}
