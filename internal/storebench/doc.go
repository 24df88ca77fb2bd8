// Package storebench measures a store holding an imported OpenClaw state:
// the listing, history and session-update operations the gateway runs all
// the time, plus memory and disk use. It is the core of `switchboard bench
// store`, whose JSON report keeps the key names of Report.
package storebench
