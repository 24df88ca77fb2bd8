package tracing

import (
	"encoding/binary"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/trace"
)

// sampler decides which new spans are recorded, as OpenTelemetry's
// samplers do: a span under a parent follows the parent's sampled flag
// when parentBased, and a root span (or any span, without parentBased)
// is kept when its trace id falls under ratio — the same test as the
// SDK's TraceIDRatioBased, so every service sampling by ratio keeps the
// same traces.
type sampler struct {
	parentBased bool
	// bound is ratio × 2⁶³: a trace id whose last 8 bytes, shifted right
	// once, are below it is kept.
	bound uint64
	all   bool // ratio ≥ 1
}

func newSampler(ratio float64, parentBased bool) sampler {
	s := sampler{parentBased: parentBased}
	switch {
	case ratio >= 1:
		s.all = true
	case ratio > 0:
		s.bound = uint64(ratio * (1 << 63))
	}
	return s
}

// sampled is the decision for a span of trace tid under parent (invalid
// for a root span).
func (s sampler) sampled(parent trace.SpanContext, tid trace.TraceID) bool {
	if s.parentBased && parent.IsValid() {
		return parent.IsSampled()
	}
	return s.all || binary.BigEndian.Uint64(tid[8:16])>>1 < s.bound
}

// samplerFrom is the sampler of ratio when set, else the one
// OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG name (the default,
// and any value not known here: parentbased_always_on). A ratio
// argument that is not a number in 0..1 is 1, as in the SDK.
func samplerFrom(ratio *float64, getenv func(string) string) sampler {
	if ratio != nil {
		return newSampler(*ratio, true)
	}
	arg := func() float64 {
		r, err := strconv.ParseFloat(strings.TrimSpace(getenv("OTEL_TRACES_SAMPLER_ARG")), 64)
		if err != nil || r < 0 || r > 1 {
			return 1
		}
		return r
	}
	switch strings.ToLower(strings.TrimSpace(getenv("OTEL_TRACES_SAMPLER"))) {
	case "always_on":
		return newSampler(1, false)
	case "always_off":
		return newSampler(0, false)
	case "traceidratio":
		return newSampler(arg(), false)
	case "parentbased_always_off":
		return newSampler(0, true)
	case "parentbased_traceidratio":
		return newSampler(arg(), true)
	}
	return newSampler(1, true)
}
