// Package sessionkey parses, canonicalizes and classifies session keys.
//
// A canonical key is lowercase `agent:<agentId>:<rest>` (docs/design.md#session-keys-and-resolution). Users
// and models may also write the literal `main` (the requester agent's main
// session), the configured main key, `global` when session.scope is global,
// or legacy unprefixed keys such as `cron:<job>`, `hook:<uuid>`,
// `node-<id>` and `<channel>:group:<id>`; Resolver.Canonical maps every one
// of them to its canonical form. Kind and channel classification always work
// on canonical keys, which is where switchboard departs from OpenClaw (whose
// classifier only recognises unprefixed keys).
//
// Everything here is a pure function of its arguments: no I/O, no state.
package sessionkey
