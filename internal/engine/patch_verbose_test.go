package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestPatchVerboseLevel: sessions.patch refuses a verbose level OpenClaw
// does not know ("invalid verboseLevel (use …)", openclaw-notes §6.3: "and
// similar for each enum"); it took any string.
func TestPatchVerboseLevel(t *testing.T) {
	cases := []struct {
		in, want, wantErr string
	}{
		{in: "on", want: "on"},
		{in: "Full", want: "full"},
		{in: " off ", want: "off"},
		{in: "yes", want: "on"},
		{in: "all", want: "full"},
		{in: "", want: ""},
		{in: "loud", wantErr: "invalid verboseLevel (use off|on|full)"},
		{in: "high", wantErr: "invalid verboseLevel"},
	}
	h := newHarness(t, nil, nil)
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			v := tc.in
			s, err := h.e.patch(context.Background(), "agent:main:verbose", PatchParams{VerboseLevel: &v})
			if tc.wantErr != "" {
				if err == nil || domain.ErrorCode(err) != domain.CodeInvalid || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("patch verboseLevel %q = %q, %v; want invalid %q", tc.in, s.VerboseLevel, err, tc.wantErr)
				}
				return
			}
			if err != nil || s.VerboseLevel != tc.want {
				t.Fatalf("patch verboseLevel %q = %q, %v; want %q", tc.in, s.VerboseLevel, err, tc.want)
			}
		})
	}
}
