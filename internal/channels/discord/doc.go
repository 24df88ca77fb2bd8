// Package discord is switchboard's Discord channel: it receives messages
// over the Discord Gateway (v10) and posts replies over the REST API (v10).
//
// The gateway connection is owned here (gateway.go) rather than by
// disgo's gateway client: that client reconnects from goroutines nobody
// can stop and shares its resume state between goroutines without
// synchronisation, while switchboard needs every goroutine owned and the
// race detector clean. disgo still supplies the wire types (identify,
// resume, ready, messages) and the REST client; the REST client runs with
// this package's rate limiter (ratelimit.go), which honours Discord's
// buckets and Retry-After (fractional seconds included) and starts no
// goroutine.
//
// Inbound delivery promise: Discord does not redeliver a message that
// arrived while the gateway was down, or one lost in a crash before its
// turn committed; a resumed session replays only what Discord still
// buffers for it. Outbound: every send carries a nonce derived from its
// outbox row with enforce_nonce, so a retried send is not posted twice.
package discord
