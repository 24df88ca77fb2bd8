// Package redact masks credentials in text and sanitizes transcript
// messages for sessions_history: secrets are masked, long text fields are
// truncated, bulky fields are dropped and the whole result is capped in
// size, so a model reading another session's history neither leaks keys
// nor floods its context.
package redact
