package limits

import (
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/config"
)

func guardsFor(session, agent int) *Guards {
	cfg := &config.Config{}
	if session > 0 {
		cfg.Gateway.Limits.RateLimit.Session = config.ScopeRateLimit{RequestsPerSecond: 0.001, Burst: session}
	}
	if agent > 0 {
		cfg.Gateway.Limits.RateLimit.Agent = config.ScopeRateLimit{RequestsPerSecond: 0.001, Burst: agent}
	}
	start := time.Unix(1_800_000_000, 0)
	return New(Options{Config: cfg, Now: func() time.Time { return start }})
}

// TestAdmitTakesOncePerSessionAndAgent: a session or an agent named twice
// in one call is charged once.
func TestAdmitTakesOncePerSessionAndAgent(t *testing.T) {
	for _, tc := range []struct {
		name           string
		session, agent int
		calls          [][]string
		want           string // in the last call's error; "" for none
	}{
		{"one session twice in a call is one unit", 1, 0, [][]string{{"agent:main:a", "agent:main:a"}}, ""},
		{"the session's second call is over", 1, 0, [][]string{{"agent:main:a"}, {"agent:main:a"}}, "rateLimit.session"},
		{"two sessions of one agent are one agent unit", 0, 1, [][]string{{"agent:main:a", "agent:main:b"}}, ""},
		{"the agent's second call is over", 0, 1, [][]string{{"agent:main:a"}, {"agent:main:b"}}, "rateLimit.agent"},
		{"two agents are a unit each", 0, 1, [][]string{{"agent:main:a", "agent:ops:b"}}, ""},
		{"empty keys are skipped", 1, 1, [][]string{{"", "agent:main:a", ""}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := guardsFor(tc.session, tc.agent)
			var err error
			for _, keys := range tc.calls {
				err = g.Admit(keys...)
			}
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Admit = %v, want nil", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("Admit = %v, want an error naming %s", err, tc.want)
			}
		})
	}
}

// TestAdmitAllocatesNothing: every chat turn passes here.
func TestAdmitAllocatesNothing(t *testing.T) {
	g := guardsFor(0, 0)
	if n := testing.AllocsPerRun(100, func() { _ = g.Admit("agent:main:a", "agent:main:b") }); n != 0 {
		t.Fatalf("Admit allocates %v times a call, want 0", n)
	}
}
