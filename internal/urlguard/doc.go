// Package urlguard is the one gate every outbound HTTP request whose
// target a client or a remote can influence goes through: the A2A remote
// client (agent cards and the endpoints they name) and, later, A2A push
// notifications.
//
// A Guard refuses what an attacker steering a URL wants: a target on a
// loopback, private, link-local or otherwise non-public address (checked
// on the address actually dialled, so a DNS name that resolves there is
// refused too), any redirect (a redirect would carry the credential to a
// place config never named), and schemes other than http and https.
// Credentials are the caller's to attach, and only to an origin config
// names (SameOrigin). Remote error bodies are never passed on: callers
// report the status, not the text.
package urlguard
