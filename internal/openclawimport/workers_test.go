package openclawimport

import "testing"

func TestPlanWorkers(t *testing.T) {
	for _, tc := range []struct{ procs, want int }{
		{1, 1}, // the writer shares the one processor
		{2, 1},
		{3, 2},
		{16, 15},
	} {
		if got := planWorkers(tc.procs); got != tc.want {
			t.Errorf("planWorkers(%d) = %d, want %d", tc.procs, got, tc.want)
		}
	}
}
