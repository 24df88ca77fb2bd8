// Package anthropic is the provider for the Anthropic Messages API. It wraps
// the official SDK behind domain.Provider so the rest of switchboard never
// sees SDK types.
package anthropic

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/model/modelerr"
)

// Defaults of Config.
const (
	DefaultName      = "anthropic"
	DefaultBaseURL   = "https://api.anthropic.com"
	DefaultTimeout   = 120 * time.Second
	DefaultMaxTokens = 4096
	// API is the api field of the assistant messages this provider writes.
	API = "anthropic-messages"
)

// Config configures one Anthropic Messages endpoint.
type Config struct {
	// Name is the provider name used in model references (default "anthropic").
	Name string
	// BaseURL is the API root, without /v1 (default DefaultBaseURL).
	BaseURL string
	// APIKey is sent as x-api-key; empty sends no credentials.
	APIKey string
	// MaxRetries is how often a retryable failure (429, 408, 409, 5xx, 529,
	// connection errors) is retried with backoff; the registry defaults it to 2.
	MaxRetries int
	// Timeout bounds one call, retries included (default DefaultTimeout).
	Timeout time.Duration
	// HTTPClient carries the requests (default: a client of its own).
	HTTPClient *http.Client
	// Now stamps the answers (default time.Now).
	Now func() time.Time
}

// Provider calls the Anthropic Messages API. It is safe for concurrent use.
type Provider struct {
	name    string
	timeout time.Duration
	now     func() time.Time
	svc     sdk.MessageService
}

var _ domain.Provider = (*Provider)(nil)

// New checks cfg and returns a provider. It reads no environment and no
// credential files: keys and URLs come from cfg only.
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
		// Without it the SDK walks ANTHROPIC_* variables and profile files.
		option.WithoutEnvironmentDefaults(),
		option.WithoutOpenTelemetry(),
		option.WithBaseURL(strings.TrimSuffix(cfg.BaseURL, "/") + "/"),
		option.WithHTTPClient(cfg.HTTPClient),
		option.WithMaxRetries(cfg.MaxRetries),
		// Also stops the SDK from refusing large max_tokens without streaming;
		// Complete bounds the whole call with the same timeout.
		option.WithRequestTimeout(cfg.Timeout),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	client := sdk.NewClient(opts...)
	return &Provider{name: cfg.Name, timeout: cfg.Timeout, now: cfg.Now, svc: client.Messages}, nil
}

// Name returns the provider name used in model references.
func (p *Provider) Name() string { return p.name }

// ThinkingLevels lists the levels model accepts: every level for models
// with extended thinking (Claude 3.7 and the Claude 4 families), else off.
func (p *Provider) ThinkingLevels(model string) []string {
	if thinkingModel(model) {
		return []string{"off", "minimal", "low", "medium", "high"}
	}
	return []string{"off"}
}

// thinkingBudget returns the budget_tokens of a thinking level, false for
// off, the default and unknown levels.
func thinkingBudget(level string) (int64, bool) {
	switch level {
	case "minimal":
		return 1024, true
	case "low":
		return 2048, true
	case "medium":
		return 8192, true
	case "high":
		return 16384, true
	}
	return 0, false
}

// thinkingModel reports whether model takes extended thinking.
func thinkingModel(model string) bool {
	patterns := []string{"claude-3-7*", "claude-sonnet-4*", "claude-opus-4*", "claude-haiku-4*", "claude-*-4-*", "claude-*-4"}
	for _, pat := range patterns {
		if ok, _ := path.Match(pat, model); ok {
			return true
		}
	}
	return false
}

// Complete sends one Messages request: on the streaming API (stream.go)
// when the caller asks for deltas (req.OnDelta), else in one answer.
// Errors follow package modelerr: they name the provider and the HTTP
// status.
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
