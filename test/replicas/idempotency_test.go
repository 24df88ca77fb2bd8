package replicas

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestIdempotencyAcrossReplicas: the same chat with the same idempotency
// key, sent through three replicas at once, is one run; the same key with
// another message is a conflict on every replica.
func TestIdempotencyAcrossReplicas(t *testing.T) {
	gs := startReplicas(t, 3, setup{})
	for round := range 5 {
		key := fmt.Sprintf("agent:main:idem%d", round)
		idem := fmt.Sprintf("k%d", round)
		got := make([]string, len(gs))
		var wg sync.WaitGroup
		for i, g := range gs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var a struct{ Run *run }
				g.call("POST", "/api/sessions/"+key+"/chat", map[string]any{"message": "once", "idempotencyKey": idem}, &a)
				got[i] = a.Run.RunID
			}()
		}
		wg.Wait()
		if got[0] == "" || got[1] != got[0] || got[2] != got[0] {
			t.Fatalf("round %d: run ids %v, want one run", round, got)
		}
		gs[round%3].wait(got[0], 20*time.Second)
		var runs struct{ Runs []run }
		gs[(round+1)%3].call("GET", "/api/runs?session="+key, nil, &runs)
		if len(runs.Runs) != 1 {
			t.Fatalf("round %d: %d runs on %s, want 1", round, len(runs.Runs), key)
		}
		for _, g := range gs {
			if code := g.status("POST", "/api/sessions/"+key+"/chat", map[string]any{"message": "other", "idempotencyKey": idem}); code != 409 {
				t.Fatalf("round %d: the key with another message on %s: HTTP %d, want 409", round, g.name, code)
			}
		}
	}
}
