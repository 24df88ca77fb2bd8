package api

import "testing"

// TestLimitErrors pins the wording of a refused value: the parameter, the
// bound, and the unit in the number's grammar ("1 minute", "5 minutes").
func TestLimitErrors(t *testing.T) {
	tests := []struct {
		l    Limit
		n    int64
		want string
	}{
		{ListActiveMinutes, -1, "activeMinutes must be at least 1 minute (got -1)"},
		{SpawnRunTimeout, -1, "runTimeoutSeconds must be at least 0 seconds (got -1)"},
		{SpawnRunTimeout, 604801, "runTimeoutSeconds must be at most 604800 seconds (got 604801)"},
		{MessageChars, 0, "message must be at least 1 character (got 0)"},
		{ListKinds, 17, "kinds must be at most 16 items (got 17)"},
		{Limit{Name: "n", Min: 2, Max: 1, Unit: "items"}, 5, "n must be at most 1 item (got 5)"},
		{Limit{Name: "n", Min: 2, Max: 3}, 1, "n must be at least 2 (got 1)"},
	}
	for _, tt := range tests {
		_, err := tt.l.Apply(tt.n)
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s.Apply(%d) = %v, want %q", tt.l.Name, tt.n, err, tt.want)
		}
	}
	if _, err := ListActiveMinutes.ApplyFloat(-1e300); err == nil || err.Error() != "activeMinutes must be at least 1 minute" {
		t.Errorf("ApplyFloat(-1e300) = %v", err)
	}
}
