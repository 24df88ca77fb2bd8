package gateway

import (
	"errors"
	"fmt"
	"math"
	"net/http"

	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/ratelimit"
)

// Defaults of gateway.limits.rateLimit.
const (
	DefaultRequestsPerSecond = 100
	DefaultRequestBurst      = 400
)

// tokenLimit is the per-token limit of gateway.limits.rateLimit, with its
// defaults; a negative rate turns it off.
func tokenLimit(c config.RateLimitConfig) ratelimit.Limit {
	l := ratelimit.Limit{PerSecond: c.RequestsPerSecond, Burst: c.Burst}
	switch {
	case l.PerSecond < 0:
		return ratelimit.Limit{}
	case l.PerSecond == 0:
		l.PerSecond = DefaultRequestsPerSecond
	}
	if l.Burst <= 0 {
		l.Burst = DefaultRequestBurst
	}
	return l
}

// allow takes one request from g's bucket. Only tokens of
// gateway.auth.tokens are limited: the main token is the operator's own.
func (s *Server) allow(g grant) *ratelimit.Exceeded {
	if !g.limited {
		return nil
	}
	var ex *ratelimit.Exceeded
	if err := s.limiter.Allow(ratelimit.ScopeToken, g.name); errors.As(err, &ex) {
		s.metrics.rateLimited.Inc()
		return ex
	}
	return nil
}

// limitedError is the error vocabulary's form of a refusal: retryable
// UNAVAILABLE on the WebSocket, with the limit and the wait in its words.
func limitedError(ex *ratelimit.Exceeded) error {
	return domain.Errorf(domain.CodeUnavailable, "%s (gateway.limits.rateLimit)", ex.Error())
}

// writeRateLimited answers an HTTP request over its token's limit: 429
// with Retry-After (whole seconds, at least 1).
func writeRateLimited(w http.ResponseWriter, ex *ratelimit.Exceeded) {
	err := limitedError(ex)
	recordCause(w, err)
	w.Header().Set("Retry-After", fmt.Sprint(int(math.Max(1, math.Ceil(ex.RetryAfter.Seconds())))))
	writeJSON(w, http.StatusTooManyRequests, errorBody(domain.CodeUnavailable, domain.ErrorMessage(err), requestIDOf(w)))
}
