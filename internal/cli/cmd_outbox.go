package cli

import (
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

var outboxStatuses = []domain.OutboxStatus{domain.OutboxPending, domain.OutboxDelivered, domain.OutboxFailed}

func outboxCommand() *command {
	return &command{
		name:    "outbox",
		summary: "inspect deliveries (announces, channel messages)",
		subs: []*command{{
			name:    "list",
			summary: "list outbox items, oldest first",
			help:    "Announces and channel deliveries go through the outbox: delivered at least once, retried with\nbackoff, and ending in a visible failed state.",
			example: []string{"switchboard outbox list", "switchboard outbox list --status failed --json"},
			define: func(e *env, fs *flag.FlagSet) func([]string) error {
				status := fs.String("status", "", "only items that are `STATUS`: pending, delivered or failed")
				var limit intFlag
				fs.Var(&limit, "limit", "at most `N` items ("+api.OutboxListLimit.Describe()+")")
				return func(pos []string) error {
					if err := e.wantArgs(pos, 0, 0); err != nil {
						return err
					}
					n, err := e.limited("limit", &limit, api.OutboxListLimit, int(api.OutboxListLimit.Default))
					if err != nil {
						return err
					}
					q := api.OutboxRequest{Limit: n}
					if *status != "" {
						s := strings.ToLower(*status)
						if !contains(domain.Strings(outboxStatuses), s) {
							return e.usagef("--status must be pending, delivered or failed (got %q)", *status)
						}
						q.Statuses = []domain.OutboxStatus{domain.OutboxStatus(s)}
					}
					return e.withService(reads, func(s *service) error {
						items, err := s.Outbox(e.ctx, api.Operator(), q)
						if err != nil {
							return err
						}
						if items == nil {
							items = []domain.OutboxItem{}
						}
						if e.json {
							return printJSON(e.stdout, map[string]any{"count": len(items), "items": items})
						}
						if len(items) == 0 {
							_, err := fmt.Fprintln(e.stdout, "No outbox items.")
							return err
						}
						now := time.Now()
						t := newTable(e.stdout, "ID", "KIND", "SESSION", "CHANNEL", "STATUS", "ATTEMPTS", "CREATED", "LAST ERROR")
						for _, it := range items {
							t.row(fmt.Sprint(it.ID), string(it.Kind), it.SessionKey, orDash(it.Channel), string(it.Status), fmt.Sprint(it.Attempts), ago(it.CreatedAt, now), clip(orDash(it.LastError), 60))
						}
						return t.flush()
					})
				}
			},
		}},
	}
}
