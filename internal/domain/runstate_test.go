package domain

import (
	"errors"
	"strings"
	"testing"
)

func TestRunEdgesTable(t *testing.T) {
	from := append([]RunStatus{RunNew}, RunStatuses...)
	seen := map[[2]RunStatus]bool{}
	for _, e := range RunEdges {
		k := [2]RunStatus{e.From, e.To}
		if seen[k] {
			t.Errorf("edge %s → %s listed twice", statusName(e.From), e.To)
		}
		seen[k] = true
		if e.To == RunNew {
			t.Errorf("edge %s → new: no run becomes unstored", statusName(e.From))
		}
		if RunTerminal(e.From) {
			t.Errorf("edge %s → %s leaves a terminal status", e.From, e.To)
		}
		if e.By == "" {
			t.Errorf("edge %s → %s names nothing that takes it", statusName(e.From), e.To)
		}
	}
	for _, f := range from {
		for _, to := range RunStatuses {
			err := CheckRunEdge("r1", f, to)
			if seen[[2]RunStatus{f, to}] {
				if err != nil || !RunEdgeLegal(f, to) {
					t.Errorf("%s → %s: legal edge refused: %v", statusName(f), to, err)
				}
				continue
			}
			var illegal *IllegalRunTransition
			if !errors.As(err, &illegal) || illegal.From != f || illegal.To != to || RunEdgeLegal(f, to) {
				t.Errorf("%s → %s: illegal edge accepted or mis-reported: %v", statusName(f), to, err)
				continue
			}
			msg := err.Error()
			if !strings.Contains(msg, "from "+statusName(f)+" to "+string(to)) || !strings.Contains(msg, "r1") {
				t.Errorf("%s → %s: error %q does not name the run and both statuses", statusName(f), to, msg)
			}
		}
	}
}

// Every status is reachable from new, and every run can end.
func TestRunEdgesReachAndEnd(t *testing.T) {
	reach := map[RunStatus]bool{RunNew: true}
	for changed := true; changed; {
		changed = false
		for _, e := range RunEdges {
			if reach[e.From] && !reach[e.To] {
				reach[e.To], changed = true, true
			}
		}
	}
	for _, s := range RunStatuses {
		if !reach[s] {
			t.Errorf("status %s is unreachable", s)
		}
		if RunTerminal(s) {
			continue
		}
		ends := false
		for _, e := range RunEdges {
			ends = ends || e.From == s && RunTerminal(e.To)
		}
		if !ends {
			t.Errorf("a %s run has no edge to an end", s)
		}
	}
}
