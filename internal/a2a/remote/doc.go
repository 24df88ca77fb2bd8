// Package remote is switchboard's A2A client for remote agents: the
// agents of `a2a.remotes` that sessions_send reaches as
// `agent:<remoteId>:<rest>`. It fetches and caches each remote's agent
// card, picks the endpoint (the JSON-RPC binding of protocol 1.0 when the
// card offers it, else 0.3), sends one message in a context and waits for
// the task's result, polling GetTask while the remote works, never past
// the caller's context.
//
// Loop governance crosses the wire here: every message carries the
// chain of session keys it went through in its metadata under ChainKey,
// and an A2A server that is a switchboard reads it back (ChainOf).
package remote
