package query

import (
	"context"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/policy"
)

// Runs lists the runs of q, newest first, that g lets its viewer read (as
// sessions_history decides): a query of one session is refused whole when
// the viewer may not read it; one of all sessions keeps the runs of those
// it may.
func (r Reader) Runs(ctx context.Context, g Guard, q domain.RunQuery) ([]domain.Run, error) {
	if q.SessionKey != "" {
		if err := g.Check(ctx, q.SessionKey, policy.ActionHistory); err != nil {
			return nil, err
		}
		return r.Store.ListRuns(ctx, q)
	}
	runs, err := r.Store.ListRuns(ctx, q)
	if err != nil || g.operator {
		return runs, err
	}
	out := runs[:0]
	for _, run := range runs {
		if g.Check(ctx, run.SessionKey, policy.ActionHistory) == nil {
			out = append(out, run)
		}
	}
	return out, nil
}
