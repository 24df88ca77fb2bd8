package channels

import (
	"net/http"
	"strconv"
	"time"

	"github.com/switchboard-go/switchboard/internal/outbox"
)

// ClassifyHTTP sorts a provider's refusal of a call for the outbox: a 429
// waits its Retry-After seconds (limitWait when it names none), a 5xx is
// retried with backoff and marks the provider unreachable, anything else
// is permanent. err describes the refusal.
func ClassifyHTTP(c *Counters, status int, h http.Header, limitWait time.Duration, err error) error {
	switch {
	case status == http.StatusTooManyRequests:
		wait := limitWait
		if s, e := strconv.Atoi(h.Get("Retry-After")); e == nil && s > 0 {
			wait = time.Duration(s) * time.Second
		}
		return &RetryAfterError{After: wait, Err: err}
	case status >= 500:
		c.SetConnected(false)
		return err
	default:
		return outbox.Permanent(err)
	}
}
