package gateway

import (
	"net/http"
	"strings"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// requesterOf is the requester a POST with `as` in its body names: that
// `as`, or the `as` query every other route reads. Ignoring the query
// acted with the caller's full rights when it had asked for a narrower
// requester, so both count, and two different ones are refused.
func requesterOf(r *http.Request, body string) (string, error) {
	q, b := strings.TrimSpace(as(r)), strings.TrimSpace(body)
	switch {
	case q == "":
		return b, nil
	case b == "" || b == q:
		return q, nil
	}
	return "", domain.Invalid("invalid request: as given twice (query %q, body %q)", q, b)
}
