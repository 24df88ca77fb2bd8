package tracing

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
)

// Config is what Setup needs: `tracing.*` of the config file.
type Config struct {
	Enabled bool
	// Endpoint is the OTLP/HTTP base URL (".../v1/traces" is appended
	// unless the path already ends with it); empty: the OTEL_EXPORTER_OTLP_*
	// variables, else http://localhost:4318.
	Endpoint string
	// Headers are sent with every export (added to OTEL_EXPORTER_OTLP_HEADERS).
	Headers map[string]string
	// SampleRatio is the share of new traces recorded (0..1); nil: the
	// OTEL_TRACES_SAMPLER variables, else 1. A caller's sampled flag is
	// always followed.
	SampleRatio *float64
	// Version is the service.version resource attribute.
	Version string
}

// on is set while a Provider is installed: instrumentation reads it
// first, so tracing off costs one atomic load.
var on atomic.Bool

// Enabled reports whether spans are being recorded and exported.
func Enabled() bool { return on.Load() }

// tracerName names switchboard's spans' instrumentation scope.
const tracerName = "github.com/switchboard-go/switchboard"

// recorder is what an installed Setup records spans with: its sampler
// and the batcher its ended spans go to.
type recorder struct {
	sampler sampler
	batcher *batcher
}

// installed is the recorder of the installed Provider.
var installed atomic.Pointer[recorder]

// propagator is the W3C trace-context propagator every carrier uses.
var propagator = propagation.TraceContext{}

// Provider is an installed recorder; Shutdown flushes and removes it.
type Provider struct {
	rec *recorder
}

// Setup installs an OTLP/HTTP exporter and the recorder of spans when
// cfg.Enabled (and OTEL_SDK_DISABLED is not "true"); otherwise it creates
// nothing and returns nil. getenv reads the OTEL_* variables the config
// does not set (nil: none).
func Setup(ctx context.Context, cfg Config, getenv func(string) string) (*Provider, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	if !cfg.Enabled || strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return nil, nil
	}
	opts := []otlptracehttp.Option{}
	if cfg.Endpoint != "" {
		u, err := tracesURL(cfg.Endpoint)
		if err != nil {
			return nil, err
		}
		opts = append(opts, otlptracehttp.WithEndpointURL(u))
	}
	if len(cfg.Headers) > 0 {
		h := parseHeaders(getenv("OTEL_EXPORTER_OTLP_HEADERS"))
		for k, v := range parseHeaders(getenv("OTEL_EXPORTER_OTLP_TRACES_HEADERS")) {
			h[k] = v
		}
		for k, v := range cfg.Headers {
			h[k] = v
		}
		opts = append(opts, otlptracehttp.WithHeaders(h))
	}
	exp, err := newExporter(ctx, otlptracehttp.NewClient(opts...))
	if err != nil {
		return nil, fmt.Errorf("tracing: OTLP exporter: %w", err)
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "switchboard"), attribute.String("service.version", cfg.Version)),
		resource.WithFromEnv())
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		return nil, fmt.Errorf("tracing: resource: %w", err)
	}
	exp.setResource(res)
	p := &Provider{rec: &recorder{sampler: samplerFrom(cfg.SampleRatio, getenv), batcher: newBatcher(exp, batchLimitsFrom(getenv))}}
	installed.Store(p.rec)
	on.Store(true)
	return p, nil
}

// Shutdown exports what is buffered and uninstalls the provider. A nil
// Provider (tracing off) does nothing.
func (p *Provider) Shutdown(ctx context.Context) error {
	if p == nil {
		return nil
	}
	on.Store(false)
	installed.CompareAndSwap(p.rec, nil)
	if err := p.rec.batcher.Shutdown(ctx); err != nil {
		return fmt.Errorf("tracing: shutdown: %w", err)
	}
	return nil
}

// ForceFlush exports every ended span now.
func (p *Provider) ForceFlush(ctx context.Context) error {
	if p == nil {
		return nil
	}
	return p.rec.batcher.ForceFlush(ctx)
}

// tracesURL is endpoint with the OTLP traces path, as OTEL_EXPORTER_OTLP_ENDPOINT is read.
func tracesURL(endpoint string) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("tracing.endpoint %q: want an http(s) URL such as http://localhost:4318", endpoint)
	}
	if !strings.HasSuffix(u.Path, "/v1/traces") {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/v1/traces"
	}
	return u.String(), nil
}

// parseHeaders reads the OTEL_EXPORTER_OTLP_HEADERS form: k=v pairs,
// comma-separated, values URL-encoded.
func parseHeaders(s string) map[string]string {
	h := map[string]string{}
	for _, pair := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			continue
		}
		if dec, err := url.QueryUnescape(strings.TrimSpace(v)); err == nil {
			v = dec
		}
		h[k] = strings.TrimSpace(v)
	}
	return h
}
