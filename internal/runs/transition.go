package runs

import "github.com/switchboard-go/switchboard/internal/domain"

// A run's status changes in one place: transition, inside the store
// transaction that makes the change durable, along an edge of
// domain.RunEdges. The ways a run gets from Submit to its end differ only
// in when that transaction commits (the commit strategies): the ordinary
// claim commits on its own before the model is called (execute); a claim at
// submission commits with the run's creation (submit), durably at once or,
// on a store that says later when it is durable, while the model is called
// (domain.DeferredStore); a quick turn commits nothing before the model's
// final answer and then takes the edge from new straight to ok, in the one
// end-of-run transaction every run uses (endTx).

// transition moves cur to status to inside tx. cur is the run as read in
// tx, or, with status domain.RunNew, a run not stored yet (it is created).
// An edge domain.RunEdges does not list is refused with a
// *domain.IllegalRunTransition naming both statuses, and nothing is
// written. created is false when a new run's idempotency key names an
// earlier run, which is returned unchanged.
//
// Options.Audit sees every transition that wrote something, in tx, so the
// audit record of a run's creation or stop commits with it.
func (rt *Runtime) transition(tx domain.Tx, cur domain.Run, to domain.RunStatus, now int64) (next domain.Run, created bool, err error) {
	if err := domain.CheckRunEdge(cur.ID, cur.Status, to); err != nil {
		return cur, false, err
	}
	next = moved(cur, to, now)
	if cur.Status == domain.RunNew {
		next, created, err = tx.CreateRun(next)
	} else {
		created, err = true, tx.PutRun(next)
	}
	if err == nil && created && rt.opts.Audit != nil {
		err = rt.opts.Audit(tx, cur.Status, next)
	}
	return next, created, err
}

// moved is cur with status to, its times stamped at now: the only
// assignment of a run's status (transition writes it; a quick turn shows
// its hooks the run as its claim would write it).
func moved(cur domain.Run, to domain.RunStatus, now int64) domain.Run {
	from := cur.Status
	cur.Status = to
	switch {
	case from == domain.RunNew && to == domain.RunQueued:
		// fill stamped its creation.
	case to == domain.RunRunning:
		cur.StartedAt, cur.UpdatedAt = now, now
	case to == domain.RunQueued:
		// The crash rule: the run's next attempt.
		cur.Attempt = max(cur.Attempt, 1) + 1
		cur.UpdatedAt = now
	case domain.RunTerminal(to):
		cur.EndedAt, cur.UpdatedAt = now, now
		if cur.StartedAt == 0 && to != domain.RunCancelled {
			cur.StartedAt = now
		}
	}
	return cur
}

// unstored is r as a run not stored yet (status domain.RunNew), whatever
// status a caller gave it.
func unstored(r domain.Run) domain.Run {
	r.Status = domain.RunNew
	return r
}
