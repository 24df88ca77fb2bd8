package cli

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
)

func usageCommand() *command {
	return &command{
		name:    "usage",
		summary: "report model usage (tokens, cost, runs) by agent, session or model",
		help: "Sums every model step recorded since --since (default: all time), grouped by agent (default),\n" +
			"session or model, largest first. A session's rollup over its spawn tree is in `sessions list`.",
		example: []string{
			"switchboard usage",
			"switchboard usage --by model --since 24h",
			"switchboard usage --by session --since 2026-11-01 --json",
		},
		define: func(e *env, fs *flag.FlagSet) func([]string) error {
			by := fs.String("by", "agent", "group by `WHAT`: agent, session or model")
			since := fs.String("since", "", "only usage since `WHEN`: a duration back (90m, 24h, 7d), a date (2026-11-01) or an RFC 3339 time")
			var limit intFlag
			fs.Var(&limit, "limit", "at most `N` groups ("+api.UsageLimit.Describe()+")")
			return func(pos []string) error {
				if err := e.wantArgs(pos, 0, 0); err != nil {
					return err
				}
				if !contains(api.UsageBy, *by) {
					return e.usagef("--by must be agent, session or model (got %q)", *by)
				}
				req := api.UsageRequest{By: *by}
				if *since != "" {
					t, err := parseSince(*since, time.Now())
					if err != nil {
						return e.usagef("--since: %v", err)
					}
					req.Since = t.UnixMilli()
				}
				n, err := e.limited("limit", &limit, api.UsageLimit, int(api.UsageLimit.Default))
				if err != nil {
					return err
				}
				req.Limit = n
				return e.withService(reads, func(s *service) error {
					res, err := s.UsageReport(e.ctx, api.Operator(), req)
					if err != nil {
						return err
					}
					if e.json {
						return printJSON(e.stdout, res)
					}
					if len(res.Groups) == 0 {
						_, err := fmt.Fprintln(e.stdout, "No usage recorded.")
						return err
					}
					t := newTable(e.stdout, strings.ToUpper(res.By), "INPUT", "OUTPUT", "TOTAL", "COST USD", "STEPS", "RUNS")
					for _, g := range res.Groups {
						t.row(g.Key, groupDigits(g.InputTokens), groupDigits(g.OutputTokens), groupDigits(g.InputTokens+g.OutputTokens),
							fmt.Sprintf("%.4f", g.CostUSD), strconv.FormatInt(g.Steps, 10), strconv.FormatInt(g.Runs, 10))
					}
					tot := res.Total
					t.row("total", groupDigits(tot.InputTokens), groupDigits(tot.OutputTokens), groupDigits(tot.InputTokens+tot.OutputTokens),
						fmt.Sprintf("%.4f", tot.CostUSD), strconv.FormatInt(tot.Steps, 10), strconv.FormatInt(tot.Runs, 10))
					return t.flush()
				})
			}
		},
	}
}

// parseSince reads --since: a duration back from now ("90m", "24h",
// "7d"), a date ("2026-11-01", local midnight) or an RFC 3339 time.
func parseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, "d") {
		if n, err := strconv.Atoi(strings.TrimSuffix(s, "d")); err == nil && n >= 0 {
			return now.Add(-time.Duration(n) * 24 * time.Hour), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return time.Time{}, fmt.Errorf("%q: want a duration back, not forward", s)
		}
		return now.Add(-d), nil
	}
	if t, err := time.ParseInLocation("2006-01-02", s, time.Local); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%q is not a duration (24h, 7d), a date (2026-11-01) or an RFC 3339 time", s)
}
