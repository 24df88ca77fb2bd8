package replicas

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/switchboard-go/switchboard/internal/testkit"
)

// TestArchiveFiresOnce: a finished child's archive (a cleanup outbox item,
// due archiveAfterMinutes later: 60 by default, at least a minute) is made
// due at once in the database; three replicas' outbox workers look for
// due items every second, and exactly one archives the child: one
// "archived" sessions.changed event reaches a client of each replica (each
// archive is told to every replica), the item is delivered in one attempt,
// and no second one comes after every worker has looked again.
func TestArchiveFiresOnce(t *testing.T) {
	url := testkit.Postgres(t)
	var gs []*gateway
	for i := range 3 {
		gs = append(gs, startGateway(t, fmt.Sprintf("r%d", i+1), fmt.Sprintf(replicaConfig, url, 3, 64)))
	}
	a := gs[0]
	var clients []*wsClient
	for _, g := range gs {
		clients = append(clients, dialWS(t, g))
	}
	parent := a.chat("agent:main:archiver", "spawn quick")
	var child run
	testkit.WaitFor(t, 20*time.Second, "the child ended", func() bool {
		kids := a.children(parent.RunID)
		if len(kids) == 1 && kids[0].Status == "ok" {
			child = kids[0]
			return true
		}
		return false
	})
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	testkit.WaitFor(t, 20*time.Second, "the child's cleanup item made due", func() bool {
		ct, err := conn.Exec(t.Context(), `UPDATE outbox SET next_attempt_at = 0
			WHERE idempotency_key = $1 AND status = 'pending'`, "archive:"+child.RunID)
		if err != nil {
			t.Fatal(err)
		}
		return ct.RowsAffected() == 1
	})
	var ob struct {
		Items []outboxItem `json:"items"`
	}
	testkit.WaitFor(t, 20*time.Second, "the cleanup item delivered", func() bool {
		a.call("GET", "/api/outbox?run="+child.RunID, nil, &ob)
		for _, it := range ob.Items {
			if it.Kind == "cleanup" && it.Status == "delivered" {
				return true
			}
		}
		return false
	})
	for _, it := range ob.Items {
		if it.Kind == "cleanup" && it.Attempts != 1 {
			t.Errorf("cleanup item: %+v, want delivered in one attempt", it)
		}
	}
	archived := func(p map[string]any) bool {
		return p["sessionKey"] == child.SessionKey && p["reason"] == "archived"
	}
	for _, c := range clients {
		c.waitEvent("sessions.changed", archived, 20*time.Second)
	}
	// A second archive would come from a worker that took the item in a
	// pass begun before the first delivery was recorded (a pass begun
	// after it finds the item delivered). Wait until every replica's
	// worker has ended two passes more than it had now: the pass under
	// way, then a whole one. Any archive they made is then published on
	// its replica; each replica next publishes a barrier (a patch of a
	// session of its own), which every client receives after whatever
	// that replica published before it (signals leave a replica and
	// reach each peer in order).
	for _, g := range gs {
		from := g.outboxPasses()
		testkit.WaitFor(t, 20*time.Second, g.name+"'s outbox worker passed twice", func() bool { return g.outboxPasses() >= from+2 })
	}
	for _, g := range gs {
		key := "agent:main:barrier-" + g.name
		g.call("POST", "/api/sessions/"+key+"/patch", map[string]any{"label": "barrier " + g.name}, nil)
		for _, c := range clients {
			c.waitEvent("sessions.changed", func(p map[string]any) bool { return p["sessionKey"] == key }, 20*time.Second)
		}
	}
	for i, c := range clients {
		if n := c.count("sessions.changed", archived); n != 1 {
			t.Errorf("client of replica %d saw %d archive events for the child, want 1", i+1, n)
		}
	}
}

// outboxPasses reads g's switchboard_outbox_passes_total: how many passes
// its outbox worker ended.
func (g *gateway) outboxPasses() uint64 {
	g.t.Helper()
	resp, err := testkit.Client.Get(g.base + "/metrics")
	if err != nil {
		g.t.Fatalf("GET /metrics on %s: %v", g.name, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "switchboard_outbox_passes_total "); ok {
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				g.t.Fatalf("%s: %q: %v", g.name, line, err)
			}
			return uint64(n)
		}
	}
	g.t.Fatalf("no switchboard_outbox_passes_total in %s's /metrics (%d %s)", g.name, resp.StatusCode, b)
	return 0
}

// count counts the events named name whose payload satisfies match.
func (c *wsClient) count(name string, match func(map[string]any) bool) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, f := range c.events {
		var p map[string]any
		if f.Event == name && json.Unmarshal(f.Payload, &p) == nil && match(p) {
			n++
		}
	}
	return n
}
