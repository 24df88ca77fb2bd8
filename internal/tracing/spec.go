package tracing

import (
	"bytes"
	"encoding/json"
)

// specTrace is the member of a stored run spec that holds the trace
// context of the work that created the run.
type specTrace struct {
	TraceParent string `json:"traceparent"`
}

// FromSpec is the traceparent kept in a run's stored spec ("" when none
// or tracing is off).
func FromSpec(spec json.RawMessage) string {
	if !Enabled() {
		return ""
	}
	return specTraceParent(spec)
}

// TraceIDOfSpec is TraceID of the traceparent a stored run spec keeps,
// read whether tracing is on or not.
func TraceIDOfSpec(spec json.RawMessage) string {
	return TraceID(specTraceParent(spec))
}

// specTail is how a stored spec ends when it keeps a traceparent: the
// engine's spec encodes it as its last member, and a version-00
// traceparent has a fixed length.
var specTail = []byte(`"traceparent":"`)

// traceParentLen is the length of a version-00 W3C traceparent.
const traceParentLen = 55

// specTraceParent reads the traceparent of a stored run spec. Every run's
// start and every run shown reads it, so the spec (which holds the whole
// user message) is decoded only when the traceparent is not where the
// engine writes it: a JSON string cannot hold an unescaped quote, so the
// tail `"traceparent":"…"}` is the top-level member and nothing else.
func specTraceParent(spec []byte) string {
	if n := len(spec) - len(specTail) - traceParentLen - 2; n >= 1 &&
		bytes.Equal(spec[n:n+len(specTail)], specTail) && bytes.Equal(spec[len(spec)-2:], []byte(`"}`)) {
		if tp := string(spec[n+len(specTail) : len(spec)-2]); TraceID(tp) != "" {
			return tp
		}
	}
	if !bytes.Contains(spec, []byte(`"traceparent"`)) {
		return ""
	}
	var s specTrace
	if json.Unmarshal(spec, &s) != nil {
		return ""
	}
	return s.TraceParent
}
