package config

import (
	"math"
	"strings"
)

// TracingConfig is `tracing.*`: OpenTelemetry traces over OTLP/HTTP
// (docs/operations.md#tracing). Off by default; the OTEL_* variables
// fill what it leaves unset.
type TracingConfig struct {
	// Enabled turns tracing on (default false: no exporter is created).
	Enabled bool `json:"enabled,omitempty"`
	// Endpoint is the collector's OTLP/HTTP base URL, e.g.
	// http://localhost:4318 (/v1/traces is appended); default:
	// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT / OTEL_EXPORTER_OTLP_ENDPOINT,
	// else http://localhost:4318.
	Endpoint string `json:"endpoint,omitempty"`
	// Headers are sent with every export (an API key), on top of
	// OTEL_EXPORTER_OTLP_HEADERS.
	Headers map[string]string `json:"headers,omitempty"`
	// SampleRatio is the share of new traces recorded, 0..1 (default:
	// OTEL_TRACES_SAMPLER, else 1). A caller's sampling decision is kept.
	SampleRatio *float64 `json:"sampleRatio,omitempty"`
	// LinkTemplate turns a trace id into a link to the user's trace
	// viewer, e.g. "http://localhost:16686/trace/{traceId}"; shown beside
	// trace ids in the CLI, the API and the web UI.
	LinkTemplate string `json:"linkTemplate,omitempty"`
}

// TraceLink is the trace viewer's link for traceID ("" without a link
// template or a trace id).
func (t TracingConfig) TraceLink(traceID string) string {
	if t.LinkTemplate == "" || traceID == "" {
		return ""
	}
	return strings.ReplaceAll(t.LinkTemplate, "{traceId}", traceID)
}

func (c *Config) checkTracing(v *checker) {
	t := c.Tracing
	if t.Endpoint != "" {
		checkURL(v, "tracing.endpoint", t.Endpoint)
	}
	for k := range t.Headers {
		if strings.TrimSpace(k) == "" || strings.ContainsAny(k, " \t\r\n:") {
			v.add("tracing.headers", "%q is not a header name", clip(k))
		}
	}
	if r := t.SampleRatio; r != nil && (math.IsNaN(*r) || *r < 0 || *r > 1) {
		v.add("tracing.sampleRatio", "%v must be between 0 and 1", *r)
	}
	if t.LinkTemplate != "" && !strings.Contains(t.LinkTemplate, "{traceId}") {
		v.add("tracing.linkTemplate", "%q must contain {traceId}", clip(t.LinkTemplate))
	}
}
