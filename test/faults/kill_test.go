package faults

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/testkit"
)

// load drives mixed traffic at g until ctx ends, recording what the
// gateway acknowledged.
type load struct {
	mu  sync.Mutex
	ack acked
	n   int
}

func (l *load) run(ctx context.Context, g *gateway, workers int, seed uint64) {
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(w)))
			for ctx.Err() == nil {
				l.step(g, rng)
			}
		}()
	}
	wg.Wait()
}

func (l *load) step(g *gateway, rng *rand.Rand) {
	l.mu.Lock()
	l.n++
	n := l.n
	l.mu.Unlock()
	switch k := rng.IntN(10); {
	case k < 4: // a chat turn, some slow
		var a chatAnswer
		msg := fmt.Sprintf("hello %d", n)
		if k == 0 {
			msg = fmt.Sprintf("slow %d", n)
		}
		if code, _ := g.call("POST", fmt.Sprintf("/api/sessions/agent:main:c%d/chat", n%7), map[string]any{"message": msg}, &a); code == 200 && a.Run != nil {
			l.mu.Lock()
			l.ack.chats = append(l.ack.chats, a.Run.RunID)
			l.mu.Unlock()
		}
	case k < 6: // a turn that sends to another session (reply-back, announce)
		var a chatAnswer
		if code, _ := g.call("POST", fmt.Sprintf("/api/sessions/agent:main:r%d/chat", n%3), map[string]any{"message": fmt.Sprintf("relay %d", n)}, &a); code == 200 && a.Run != nil {
			l.mu.Lock()
			l.ack.chats = append(l.ack.chats, a.Run.RunID)
			l.mu.Unlock()
		}
	case k < 8: // a spawn with an attachment, from HTTP or from a turn
		if k == 6 {
			var a spawnAnswer
			body := map[string]any{"task": fmt.Sprintf("job %d", n), "cleanup": "delete",
				"attachments": []map[string]any{{"name": "in.txt", "content": "data"}}}
			if code, _ := g.call("POST", "/api/spawn", body, &a); code == 200 && a.RunID != "" {
				l.mu.Lock()
				l.ack.spawns = append(l.ack.spawns, a.RunID)
				l.mu.Unlock()
			}
			return
		}
		var a chatAnswer
		if code, _ := g.call("POST", fmt.Sprintf("/api/sessions/agent:main:p%d/chat", n%3), map[string]any{"message": fmt.Sprintf("spawn %d", n)}, &a); code == 200 && a.Run != nil {
			l.mu.Lock()
			l.ack.chats = append(l.ack.chats, a.Run.RunID)
			l.mu.Unlock()
		}
	case k == 8: // cancel a run acknowledged earlier
		l.mu.Lock()
		var id string
		if len(l.ack.chats) > 0 {
			id = l.ack.chats[rng.IntN(len(l.ack.chats))]
		}
		l.mu.Unlock()
		if id != "" {
			g.call("POST", "/api/runs/"+id+"/cancel", map[string]any{}, nil)
		}
	default: // reset a session (its transcript is archived)
		g.call("POST", fmt.Sprintf("/api/sessions/agent:main:c%d/reset", n%7), map[string]any{}, nil)
	}
}

// waitIdle waits until the gateway has nothing left to do: no run queued
// or running and no outbox item pending, seen in one read of its store.
// Two separate looks (the runs, then the outbox) could each see nothing
// while work moves between them: an announce delivered from the outbox
// queues a run, and a run writes outbox items in the commit that ends it.
// One SQL statement reads one snapshot, in which both being empty means
// no work is left to create more.
func waitIdle(t *testing.T, g *gateway, within time.Duration) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(g.Dir, "switchboard.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	deadline := time.Now().Add(within)
	for {
		var runs, items int
		err := db.QueryRow(`SELECT
			(SELECT count(*) FROM runs WHERE status IN ('queued', 'running')),
			(SELECT count(*) FROM outbox WHERE status = 'pending')`).Scan(&runs, &items)
		if err == nil && runs == 0 && items == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("gateway not idle within %s: %d runs queued or running, %d outbox items pending (%v)", within, runs, items, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestKillUnderLoad SIGKILLs the gateway at random points under mixed
// load, restarts it, and after the last restart checks the invariants.
func TestKillUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("fault injection")
	}
	kills, workers, window := 5, 6, 1500*time.Millisecond
	if os.Getenv("SWITCHBOARD_FAULTS_LONG") != "" {
		kills, workers, window = 25, 12, 4*time.Second
	}
	dir := t.TempDir()
	testkit.WriteConfig(t, dir, faultConfig)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	l := &load{}
	for i := range kills {
		t0 := time.Now()
		g := startGateway(t, dir, fmt.Sprintf("run %d", i))
		t.Logf("start %d took %s", i, time.Since(t0))
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { l.run(ctx, g, workers, seed+uint64(i)); close(done) }()
		time.Sleep(window/4 + time.Duration(rng.Int64N(int64(window))))
		g.kill()
		cancel()
		<-done
	}
	start := time.Now()
	g := startGateway(t, dir, "final")
	t.Logf("final start %s", time.Since(start))
	waitIdle(t, g, 120*time.Second)
	t.Logf("idle after %s", time.Since(start))
	g.stop()
	t.Logf("stopped after %s", time.Since(start))
	checkInvariants(t, dir, l.ack)
}
