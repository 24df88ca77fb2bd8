package engine

import (
	"context"
	"errors"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// spawnGateName is the store gate (domain.Store.Gate) that makes the
// live-children limits of sessions_spawn (maxChildrenPerAgent,
// maxConcurrent) hold under concurrent calls: the count of active children
// and the commit of the new child run happen under it, so two spawns can
// never both see "one below the limit" and both start. Without it, an MCP
// client issuing several spawns at once got every one accepted (trial 9).
// The store's transaction has no run count, and a spawn is rare next to a
// chat turn, so one gate for every spawn, held for one commit, is the
// simple, sufficient bound. It is the store's, so it holds across replicas
// on PostgreSQL too (docs/decisions.md#store-gates).
const spawnGateName = "spawn-limits"

// admitSpawn counts the active children (of requesterKey, and of everyone)
// and, when the limits allow one more, runs start while still holding the
// gate; start must commit the child run before it returns. A spawn whose
// idempotency key idem already names a run is a retry, not one more child:
// it skips the limits, and start finds the first run (so two concurrent
// calls with one key both answer the one child, even at the limit).
func (e *Engine) admitSpawn(ctx context.Context, requesterKey, idem string, start func() error) error {
	release, err := e.store.Gate(ctx, spawnGateName)
	if err != nil {
		return err
	}
	defer release()
	if idem != "" {
		_, err := e.store.GetRunByIdempotencyKey(ctx, idem)
		if err == nil {
			return start()
		}
		if !errors.Is(err, domain.ErrNotFound) {
			return err
		}
	}
	subs := e.cfg.Agents.Defaults.Subagents
	active, err := e.store.ListRuns(ctx, domain.RunQuery{Kinds: []domain.RunKind{domain.RunKindSubagent}, Statuses: []domain.RunStatus{domain.RunQueued, domain.RunRunning}})
	if err != nil {
		return err
	}
	mine := 0
	for _, r := range active {
		if r.RequesterKey == requesterKey {
			mine++
		}
	}
	if subs.MaxChildrenPerAgent > 0 && mine >= subs.MaxChildrenPerAgent {
		return domain.Errorf(domain.CodeForbidden, "sessions_spawn refused: this session already has %d active sub-agents (agents.defaults.subagents.maxChildrenPerAgent=%d)", mine, subs.MaxChildrenPerAgent)
	}
	if subs.MaxConcurrent > 0 && len(active) >= subs.MaxConcurrent {
		return domain.Errorf(domain.CodeForbidden, "sessions_spawn refused: %d sub-agents are already active (agents.defaults.subagents.maxConcurrent=%d)", len(active), subs.MaxConcurrent)
	}
	return start()
}
