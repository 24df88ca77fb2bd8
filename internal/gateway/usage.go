package gateway

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// usageParams are the WS usage.report's params.
type usageParams struct {
	By    string `json:"by"`
	Since int64  `json:"since"`
	Limit int    `json:"limit"`
}

// mUsageReport is usage.report {by?, since?, limit?} → api.UsageResult.
func (s *Server) mUsageReport(ctx context.Context, cl *call) (any, error) {
	var p usageParams
	if err := decodeParams(cl.method, cl.params, &p); err != nil {
		return nil, err
	}
	return s.eng.UsageReport(ctx, cl.principal(""), api.UsageRequest{By: p.By, Since: p.Since, Limit: p.Limit})
}

// apiUsage is GET /api/usage?by=&since=&limit= → api.UsageResult.
func (s *Server) apiUsage(r *http.Request, g grant) (any, error) {
	q := api.UsageRequest{By: strings.TrimSpace(r.URL.Query().Get("by"))}
	if v := strings.TrimSpace(r.URL.Query().Get("since")); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return nil, domain.Invalid("invalid query parameter since: want Unix milliseconds (got %q)", v)
		}
		q.Since = n
	}
	var err error
	if q.Limit, err = queryLimited(r, "limit", api.UsageLimit); err != nil {
		return nil, err
	}
	return s.eng.UsageReport(r.Context(), g.principal(as(r)), q)
}
