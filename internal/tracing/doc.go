// Package tracing is switchboard's OpenTelemetry tracing: the exporter
// set up from `tracing.*` and the OTEL_* variables, the spans of a run's
// life (its turn, model calls, tool calls, deliveries), and the W3C trace
// context a run keeps in its stored spec so the work it causes — a
// sessions_send's target run, the exchange's reply-back turns and announce,
// a spawned child, its announce — joins the caller's trace even after a
// queue wait or a restart.
//
// Tracing is off unless enabled: then no exporter or recorder exists,
// Enabled reports false, and every helper returns at once without reading
// or writing anything.
package tracing
