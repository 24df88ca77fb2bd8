package gateway

import (
	"time"

	"github.com/switchboard-go/switchboard/internal/config"
)

// Defaults of gateway.limits.
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultReadTimeout bounds reading one request body (not the wait
	// for its answer: long waits and WebSockets are not cut off).
	DefaultReadTimeout = 60 * time.Second
	// DefaultIdleTimeout closes keep-alive connections idle this long.
	DefaultIdleTimeout = 60 * time.Second
	// fallbackMaxConnections is the cap when the fd limit is unknown.
	fallbackMaxConnections = 4096
	// minMaxConnections keeps a tiny fd limit from making the gateway
	// unusable.
	minMaxConnections = 16
)

// serverLimits are the resolved connection limits and timeouts.
type serverLimits struct {
	maxConns          int // total open connections
	maxConnsPerAddr   int // per client IP; 0 = off
	readHeaderTimeout time.Duration
	readTimeout       time.Duration // reading a request body
	idleTimeout       time.Duration
}

// resolveLimits applies the defaults to gateway.limits.
func resolveLimits(l config.GatewayLimits) serverLimits {
	out := serverLimits{
		maxConns:          l.MaxConnections,
		maxConnsPerAddr:   l.MaxConnectionsPerAddress,
		readHeaderTimeout: seconds(l.ReadHeaderTimeoutSeconds, DefaultReadHeaderTimeout),
		readTimeout:       seconds(l.ReadTimeoutSeconds, DefaultReadTimeout),
		idleTimeout:       seconds(l.IdleTimeoutSeconds, DefaultIdleTimeout),
	}
	if out.maxConns <= 0 {
		out.maxConns = DefaultMaxConnections()
	}
	return out
}

func seconds(n int, def time.Duration) time.Duration {
	if n <= 0 {
		return def
	}
	return time.Duration(n) * time.Second
}

// DefaultMaxConnections is 3/4 of the process's file descriptor limit
// (the rest is left for the store, transcripts, model connections and
// the MCP servers), at least 16; 4096 when the limit is unknown.
func DefaultMaxConnections() int {
	n, ok := fdLimit()
	if !ok {
		return fallbackMaxConnections
	}
	return int(max(min(n/4*3, 1<<30), minMaxConnections))
}
