package gateway

import (
	"context"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// chatSessionInfo is chat.history's sessionInfo, as OpenClaw's gateway
// sends it: the session's row with its runs as they stand. OpenClaw's
// Control UI keeps a message it sent as "sending" until the run it
// started (by the idempotencyKey it gave, runaliases.go) shows here as
// active or as the session's last run; without it the UI showed the
// sent message and its reply twice, its own copy beside the history's.
type chatSessionInfo struct {
	SessionRow
	HasActiveRun bool     `json:"hasActiveRun"`
	ActiveRunIDs []string `json:"activeRunIds"`
	LastRunID    string   `json:"lastRunId,omitempty"`
}

// sessionInfoRuns is how many of the session's newest runs sessionInfo
// looks at for the active ones.
const sessionInfoRuns = 20

// sessionInfo builds chat.history's sessionInfo for row, whose canonical
// key is key (the history's sessionKey, which the UI compares it with).
func (s *Server) sessionInfo(ctx context.Context, pr api.Principal, key string, row api.SessionRow) (chatSessionInfo, error) {
	info := chatSessionInfo{SessionRow: listRow(row), ActiveRunIDs: []string{}}
	info.Key = key
	runs, err := s.eng.ListRuns(ctx, pr, api.RunsRequest{SessionKey: row.Key, Limit: sessionInfoRuns})
	if err != nil {
		return info, err
	}
	for _, r := range runs {
		if !domain.RunTerminal(r.Status) {
			info.ActiveRunIDs = append(info.ActiveRunIDs, s.aliases.name(r.ID))
		}
	}
	info.HasActiveRun = len(info.ActiveRunIDs) > 0
	if len(runs) > 0 {
		info.LastRunID = s.aliases.name(runs[0].ID)
	}
	switch {
	case info.HasActiveRun:
		info.Status = "running"
	case info.Status == "" && len(runs) > 0:
		info.Status = sessionStatusOf(runs[0].Status)
	}
	return info, nil
}

// sessionStatusOf is OpenClaw's session status for a run that ended so.
func sessionStatusOf(st domain.RunStatus) string {
	switch st {
	case domain.RunOK:
		return "done"
	case domain.RunCancelled:
		return "killed"
	case domain.RunTimeout:
		return "timeout"
	}
	return "failed"
}

// inputConsumption says which transcript message took the input of a run
// the caller started: OpenClaw's chat.history answers inputRunIds so, and
// its Control UI replaces the copy of the message it sent with that one.
type inputConsumption struct {
	RunID           string `json:"runId"`
	ConsumedByEvent string `json:"consumedByEventId"`
}

// inputConsumptions answers inputRunIds (a run's id or its chat.send
// key) with the user message of each run among msgs; a run whose message
// is not among them is left out.
func (s *Server) inputConsumptions(ids []string, msgs []api.HistoryMessage) []inputConsumption {
	out := []inputConsumption{}
	for _, id := range ids {
		run := s.aliases.run(id)
		for _, m := range msgs {
			if m.RunID == run && m.Role == domain.RoleUser && m.ID != "" {
				out = append(out, inputConsumption{RunID: id, ConsumedByEvent: m.ID})
				break
			}
		}
	}
	return out
}
