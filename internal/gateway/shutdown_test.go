package gateway_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/runs"
)

// TestShutdownWithRunsInFlight starts 100 slow runs over the gateway,
// shuts the gateway down and then the engine (as `switchboard gateway`
// does on SIGTERM): clients are told, every run ends recorded as ok,
// aborted or re-queued for the next start, and no goroutine is left (TestMain's goleak).
func TestShutdownWithRunsInFlight(t *testing.T) {
	const n = 100
	const runDelay = 10 * time.Minute
	e := newEnv(t, envOptions{rules: []config.ScriptRule{slowRule(int(runDelay.Milliseconds()))}})
	w, _ := e.connect(t, nil)
	observer, _ := e.connect(t, nil)

	ids := make([]string, n)
	for i := range n {
		ids[i] = w.send("agent", map[string]any{"message": fmt.Sprintf("slow %d", i), "sessionKey": fmt.Sprintf("agent:main:load-%d", i),
			"idempotencyKey": fmt.Sprintf("load-%d", i)})
	}
	inFlight := map[string]bool{}
	for _, id := range ids {
		var acc struct {
			RunID, Status string
		}
		w.response(id).decode(t, &acc)
		if acc.Status != "accepted" {
			t.Fatalf("ack = %+v", acc)
		}
		inFlight[acc.RunID] = true
	}
	// Wait until every run is executing (its lifecycle start event).
	started := map[string]bool{}
	for len(started) < n {
		f := observer.wait(func(f frame) bool { return f.Event == "agent" })
		var p struct {
			RunID  string         `json:"runId"`
			Stream string         `json:"stream"`
			Data   map[string]any `json:"data"`
		}
		f.decode(t, &p)
		if p.Stream == "lifecycle" && p.Data["phase"] == "start" && inFlight[p.RunID] {
			started[p.RunID] = true
		}
	}

	// Shutdown must not wait for the runs (each would take runDelay): it
	// returns within its context, which ends long before any run could.
	// No tighter wall-clock bound: a loaded machine under -race may be slow.
	ctx, cancel := context.WithTimeout(context.Background(), runDelay/4)
	defer cancel()
	begin := time.Now()
	if err := e.srv.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	t.Logf("shutdown took %v", time.Since(begin))
	for _, c := range []*wsClient{w, observer} {
		c.wait(func(f frame) bool { return f.Event == "shutdown" })
		if code, _ := c.closed(); code != websocket.StatusGoingAway {
			t.Errorf("closed with %d, want 1001", code)
		}
	}
	e.stopGateway()
	if resp, err := e.hc.Get(e.url + "/healthz"); err == nil {
		resp.Body.Close()
		t.Errorf("gateway still answers after shutdown: %s", resp.Status)
	}

	e.stopEngine()
	for id := range inFlight {
		r, err := e.store.GetRun(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		aborted := r.Status == domain.RunError && r.Error == runs.AbortedError
		// A graceful stop follows the crash rule (docs/design.md#the-crash-rule): a run none
		// of whose tool calls ran is re-queued once, for the next start.
		requeued := r.Status == domain.RunQueued && r.Attempt == 2
		if r.Status != domain.RunOK && !aborted && !requeued {
			t.Errorf("run %s ended %s %q (attempt %d), want ok, aborted or re-queued", id, r.Status, r.Error, r.Attempt)
		}
	}
}
