package replicas

import (
	"fmt"
	"testing"
	"time"
)

// TestWaitOnAnotherReplica: a run submitted through one replica is waited
// on through every other one (HTTP wait and WebSocket agent.wait), and
// each waiter returns the ended run soon after it ends, with 2 and 3
// replicas on one database.
func TestWaitOnAnotherReplica(t *testing.T) {
	for _, n := range []int{2, 3} {
		t.Run(fmt.Sprintf("%d replicas", n), func(t *testing.T) {
			gs := startReplicas(t, n, setup{})
			for i, from := range gs {
				r := from.chat(fmt.Sprintf("agent:main:w%d", i), fmt.Sprintf("slow %d", i))
				for _, g := range gs {
					if g == from {
						continue
					}
					got := g.wait(r.RunID, 20*time.Second)
					if got.Status != "ok" || got.Reply != "slow done" {
						t.Fatalf("wait on %s for a run sent through %s: %+v, want ok with the reply", g.name, from.name, got)
					}
				}
				ws := dialWS(t, gs[(i+1)%n])
				res := ws.call("agent.wait", map[string]any{"runId": r.RunID, "timeoutMs": 20000})
				if res["status"] != "ok" {
					t.Fatalf("agent.wait on %s: %v", gs[(i+1)%n].name, res)
				}
			}
		})
	}
}

// TestWaitWakesAcrossReplicas: a waiter on one replica returns within
// milliseconds of the run's end on another (not at a poll or a timeout).
func TestWaitWakesAcrossReplicas(t *testing.T) {
	gs := startReplicas(t, 2, setup{})
	a, b := gs[0], gs[1]
	ws := dialWS(t, b)
	for i := range 5 {
		r := a.chat("agent:main:wake", fmt.Sprintf("slow %d", i))
		start := time.Now()
		res := ws.call("agent.wait", map[string]any{"runId": r.RunID, "timeoutMs": 20000})
		if res["status"] != "ok" {
			t.Fatalf("agent.wait: %v", res)
		}
		ended := time.UnixMilli(int64(res["endedAt"].(float64)))
		if late := time.Since(ended); late > time.Second {
			t.Fatalf("agent.wait on B returned %s after the run ended on A (waited %s)", late, time.Since(start))
		}
	}
}
