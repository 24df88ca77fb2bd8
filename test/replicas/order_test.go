package replicas

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/testkit"
)

// TestThousandRunsThreeReplicas: 1,000 chat turns on 20 sessions,
// submitted through 3 replicas in turn (each session's turns one after
// another, the sessions at once). Every run is executed exactly once (one
// user message and one reply each, attempt 1) and each session's runs
// execute in the order they were submitted, one at a time, whichever
// replica ran them. The lease is long (15 s): nothing is killed here, and
// a loaded machine must not make a slow lease renewal look like a dead
// replica (a take-over would be a correct attempt 2, but not this test's
// subject).
func TestThousandRunsThreeReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 runs through 3 gateway processes")
	}
	const sessions, perSession = 20, 50
	gs := startReplicas(t, 3, setup{lease: 15})
	submitted := make([][]run, sessions)
	var wg sync.WaitGroup
	for s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perSession {
				g := gs[(s+i)%len(gs)]
				submitted[s] = append(submitted[s], g.chat(fmt.Sprintf("agent:main:order%d", s), fmt.Sprintf("m%d-%d", s, i)))
			}
		}()
	}
	wg.Wait()
	waitIdle(t, gs[0], 120*time.Second)

	for s := range sessions {
		key := fmt.Sprintf("agent:main:order%d", s)
		var got struct{ Runs []run }
		gs[s%3].call("GET", "/api/runs?limit=1000&session="+key, nil, &got)
		if len(got.Runs) != perSession {
			t.Fatalf("%s: %d runs, want %d", key, len(got.Runs), perSession)
		}
		byID := map[string]run{}
		for _, r := range got.Runs {
			byID[r.RunID] = r
		}
		var prev run
		for i, sub := range submitted[s] {
			r := byID[sub.RunID]
			want := fmt.Sprintf("m%d-%d", s, i)
			if r.Status != "ok" || r.Attempt != 1 || r.Reply != "echo: "+want {
				t.Fatalf("%s run %d: %+v, want ok on attempt 1 replying to %s", key, i, r, want)
			}
			if i > 0 && r.StartedAt < prev.EndedAt {
				t.Fatalf("%s: run %d started at %d before run %d ended at %d", key, i, r.StartedAt, i-1, prev.EndedAt)
			}
			prev = r
		}
		// The transcript: each message once, in submission order, each
		// followed by its reply.
		h := gs[(s+1)%3].history(key)
		var want []message
		for i := range perSession {
			m := fmt.Sprintf("m%d-%d", s, i)
			want = append(want, message{Role: "user", Content: quote(m)}, message{Role: "assistant", Content: quote("echo: " + m)})
		}
		if !slices.EqualFunc(h, want, func(a, b message) bool { return a.Role == b.Role && a.text() == b.text() }) {
			t.Fatalf("%s transcript: %d messages, not the %d submitted in order, each replied to once:\n%v", key, len(h), len(want), texts(h))
		}
	}
}

func quote(s string) []byte { return fmt.Appendf(nil, "%q", s) }

func texts(msgs []message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Role + ": " + m.text()
	}
	return out
}

// waitIdle waits until no run is queued or running.
func waitIdle(t testing.TB, g *gateway, within time.Duration) {
	t.Helper()
	testkit.WaitFor(t, within, "every run ended", func() bool {
		var live struct{ Runs []run }
		g.call("GET", "/api/runs?limit=1&status=queued,running", nil, &live)
		return len(live.Runs) == 0
	})
}
