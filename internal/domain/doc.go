// Package domain holds switchboard's core types — sessions, transcript
// messages, runs and outbox items — and the interfaces the rest of the
// program is built around (Store, Provider). It has no dependencies beyond
// the standard library so every other package can import it.
package domain
