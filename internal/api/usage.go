package api

import "github.com/switchboard-go/switchboard/internal/domain"

// UsageBy lists the groupings of a usage report.
var UsageBy = []string{"agent", "session", "model"}

// UsageLimit bounds the groups of a usage report.
var UsageLimit = Limit{Name: "limit", Min: 1, Max: 10_000, Default: 100, Clamp: true}

// UsageRequest asks for usage totals (operator only): grouped By agent
// (default), session or model, over model steps at or after Since (Unix
// ms; 0 = all time).
type UsageRequest struct {
	By    string
	Since int64
	Limit int
}

// UsageResult is a usage report: one row per group, largest first, and
// their total.
type UsageResult struct {
	By     string              `json:"by"`
	Since  int64               `json:"since,omitempty"`
	Groups []domain.UsageGroup `json:"groups"`
	Total  domain.UsageGroup   `json:"total"`
}

// UsageStatus is what session_status shows of a session's spending and
// work: its usage rollups and budget, the progress of its running run,
// and its sub-agents' rows (with their usage and progress).
type UsageStatus struct {
	Usage          domain.SessionUsage `json:"usage"`
	Budget         *domain.Budget      `json:"budget,omitempty"`
	BudgetDeadline int64               `json:"budgetDeadline,omitempty"`
	Progress       *domain.Progress    `json:"progress,omitempty"`
	Children       []ChildRow          `json:"children"`
}
