package domain

import "fmt"

// RunNew is the status of a run that is not stored yet: the start of the
// state machine, never written to a row.
const RunNew RunStatus = ""

// RunEdge is one legal change of a run's status, and what takes it.
type RunEdge struct {
	From, To RunStatus
	// By names what takes the edge (it labels the state diagram).
	By string
}

// RunEdges is a run's state machine: every status change a run may make,
// and nothing else. The runtime's one status writer refuses any change not
// listed here; docs/architecture.md's state diagram is generated from it.
var RunEdges = []RunEdge{
	{RunNew, RunQueued, "submit"},
	{RunNew, RunRunning, "claim at submit"},
	{RunNew, RunOK, "quick turn"},
	{RunQueued, RunRunning, "claim"},
	{RunQueued, RunCancelled, "cancel"},
	{RunQueued, RunError, "claim fails"},
	{RunRunning, RunQueued, "crash rule"},
	{RunRunning, RunOK, "finish"},
	{RunRunning, RunError, "finish"},
	{RunRunning, RunTimeout, "finish"},
	{RunRunning, RunCancelled, "cancel"},
}

// RunStatuses lists every status a stored run may have.
var RunStatuses = []RunStatus{RunQueued, RunRunning, RunOK, RunError, RunTimeout, RunCancelled}

// RunEdgeLegal reports whether a run may move from status from to to.
func RunEdgeLegal(from, to RunStatus) bool {
	for _, e := range RunEdges {
		if e.From == from && e.To == to {
			return true
		}
	}
	return false
}

// IllegalRunTransition is the error of a status change RunEdges does not
// allow.
type IllegalRunTransition struct {
	RunID    string
	From, To RunStatus
}

func (e *IllegalRunTransition) Error() string {
	return fmt.Sprintf("run %s: illegal transition from %s to %s", e.RunID, statusName(e.From), statusName(e.To))
}

// CheckRunEdge returns an *IllegalRunTransition unless run id may move
// from status from to to.
func CheckRunEdge(id string, from, to RunStatus) error {
	if RunEdgeLegal(from, to) {
		return nil
	}
	return &IllegalRunTransition{RunID: id, From: from, To: to}
}

// statusName names a status in messages ("new" for RunNew).
func statusName(s RunStatus) string {
	if s == RunNew {
		return "new"
	}
	return string(s)
}
