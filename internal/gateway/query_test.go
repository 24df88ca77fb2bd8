package gateway

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestQueryDurationClampsHugeWaits checks that ?wait= with a number too
// large for a Duration (1e308, Inf) clamps to the documented maximum of
// one hour instead of overflowing into "must not be negative".
func TestQueryDurationClampsHugeWaits(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Duration
		wantErr string
	}{
		{"30s", 30 * time.Second, ""},
		{"2.5", 2500 * time.Millisecond, ""},
		{"1e308", time.Hour, ""},
		{"Inf", time.Hour, ""},
		{"-1", 0, "must not be negative"},
		{"-1s", 0, "must not be negative"},
		{"NaN", 0, "want a duration"},
		{"soon", 0, "want a duration"},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("GET", "/api/runs/x?wait="+tt.in, nil)
		d, ok, err := queryDuration(r, "wait")
		if tt.wantErr != "" {
			if domain.ErrorCode(err) != domain.CodeInvalid || !strings.Contains(domain.ErrorMessage(err), tt.wantErr) {
				t.Errorf("wait=%s: %v, %v; want error %q", tt.in, d, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !ok || d != tt.want {
			t.Errorf("wait=%s = %v, %v, %v; want %v", tt.in, d, ok, err, tt.want)
		}
	}
}
