package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/switchboard-go/switchboard/internal/config"
)

// BenchmarkConcurrentClients runs 200 WebSocket clients, each doing
// `agent` + `agent.wait` on its own session in a loop for 30 s
// (SWITCHBOARD_LOAD_SECONDS overrides), and reports p50/p99 and errors.
// Every client gets every session's events; the clients the gateway drops
// as slow consumers are counted, any other error fails the benchmark.
func BenchmarkConcurrentClients(b *testing.B) { runLoad(b, false) }

// BenchmarkConcurrentClientsSubscribed is BenchmarkConcurrentClients with
// each client subscribed to its own session (sessions.messages.subscribe
// after a first, unmeasured round trip creates it): a run's events go to
// its one client instead of all 200.
func BenchmarkConcurrentClientsSubscribed(b *testing.B) { runLoad(b, true) }

func runLoad(b *testing.B, subscribe bool) {
	seconds := 30
	if s, err := strconv.Atoi(os.Getenv("SWITCHBOARD_LOAD_SECONDS")); err == nil && s > 0 {
		seconds = s
	}
	const clients = 200
	e := newEnv(b, envOptions{cfg: func(c *config.Config) {
		c.Runtime.Lanes = config.LaneLimits{Main: clients, Nested: 64, Subagent: 64}
	}})
	if subscribe {
		// Each client subscribes before its first round trip, so the
		// sessions exist first: a client that subscribed only after a
		// round trip would get every other client's events until then,
		// which is the broadcast benchmark, not this one.
		for c := 0; c < clients; c++ {
			var out map[string]any
			if code := e.do(b, "POST", "/api/sessions/"+loadKey(c)+"/chat?wait=10s", map[string]any{"message": "load"}, &out); code != 200 {
				b.Fatalf("creating %s = %d %v", loadKey(c), code, out)
			}
		}
	}
	b.ResetTimer()
	for b.Loop() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(seconds)*time.Second)
		var mu sync.Mutex
		var lat []time.Duration
		var errs, dropped atomic.Int64
		var firstErr atomic.Value
		var wg sync.WaitGroup
		for c := 0; c < clients; c++ {
			wg.Add(1)
			go func(c int) {
				defer wg.Done()
				mine, err := loadClient(ctx, e.ws, c, subscribe)
				mu.Lock()
				lat = append(lat, mine...)
				mu.Unlock()
				switch {
				case err == nil:
				case !subscribe && strings.Contains(err.Error(), "slow consumer"):
					// Every client gets every client's events: the
					// gateway dropping those that fall behind is what
					// this variant shows, not a failure.
					dropped.Add(1)
				default:
					errs.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
				}
			}(c)
		}
		wg.Wait()
		cancel()
		if n := errs.Load(); n > 0 {
			b.Fatalf("%d clients failed; first: %v", n, firstErr.Load())
		}
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		if len(lat) == 0 {
			b.Fatal("no requests completed")
		}
		pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
		b.ReportMetric(pct(0.5), "p50-ms")
		b.ReportMetric(pct(0.99), "p99-ms")
		b.ReportMetric(float64(len(lat))/float64(seconds), "round-trips/s")
		b.ReportMetric(0, "errors")
		if !subscribe {
			b.ReportMetric(float64(dropped.Load()), "slow-consumers-dropped")
		}
	}
}

type loadFrame struct {
	Type    string          `json:"type"`
	ID      string          `json:"id"`
	OK      bool            `json:"ok"`
	Event   string          `json:"event"`
	Payload json.RawMessage `json:"payload"`
	Error   *struct{ Code, Message string }
}

// loadClient connects, then loops agent → final res → agent.wait until ctx
// ends. It returns the latency of every completed round trip.
func loadClient(ctx context.Context, url string, n int, subscribe bool) ([]time.Duration, error) {
	dctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(dctx, url, nil)
	if err != nil {
		return nil, fmt.Errorf("dial: %w", err)
	}
	defer c.CloseNow()
	c.SetReadLimit(64 << 20)
	read := func() (loadFrame, error) {
		rctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		var f loadFrame
		_, data, err := c.Read(rctx)
		if err != nil {
			return f, err
		}
		// This client ignores broadcast events: skip decoding them.
		if bytes.HasPrefix(data, []byte(`{"type":"event"`)) {
			f.Type = "event"
			return f, nil
		}
		return f, json.Unmarshal(data, &f)
	}
	write := func(id, method string, params any) error {
		b, _ := json.Marshal(map[string]any{"type": "req", "id": id, "method": method, "params": params})
		wctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return c.Write(wctx, websocket.MessageText, b)
	}
	// response reads frames (skipping events) until the res with id.
	response := func(id string) (loadFrame, error) {
		for {
			f, err := read()
			if err != nil {
				return f, err
			}
			if f.Type == "res" && f.ID == id {
				return f, nil
			}
		}
	}
	if _, err := read(); err != nil { // connect.challenge
		return nil, err
	}
	if err := write("c", "connect", map[string]any{"minProtocol": 3, "maxProtocol": 4, "role": "operator",
		"client": map[string]any{"id": "test", "version": "1", "mode": "test", "platform": "linux"}}); err != nil {
		return nil, err
	}
	if f, err := response("c"); err != nil || !f.OK {
		return nil, fmt.Errorf("connect: %v %v", err, f.Error)
	}
	var lat []time.Duration
	key := loadKey(n)
	if subscribe {
		// From now on only the session's events come (plus the
		// client's own runs).
		if err := write("s", "sessions.messages.subscribe", map[string]any{"key": key}); err != nil {
			return nil, err
		}
		if f, err := response("s"); err != nil || !f.OK {
			return nil, fmt.Errorf("subscribe: %v %+v", err, f.Error)
		}
	}
	for i := 0; ctx.Err() == nil; i++ {
		start := time.Now()
		id := fmt.Sprintf("a%d", i)
		if err := write(id, "agent", map[string]any{"message": "load", "sessionKey": key, "idempotencyKey": fmt.Sprintf("c%d-%d", n, i)}); err != nil {
			return lat, err
		}
		ack, err := response(id)
		if err != nil || !ack.OK {
			return lat, fmt.Errorf("agent ack: %v %+v", err, ack.Error)
		}
		var acc struct{ RunID string }
		_ = json.Unmarshal(ack.Payload, &acc)
		final, err := response(id)
		if err != nil || !final.OK {
			return lat, fmt.Errorf("agent final: %v %+v", err, final.Error)
		}
		wid := fmt.Sprintf("w%d", i)
		if err := write(wid, "agent.wait", map[string]any{"runId": acc.RunID, "timeoutMs": 30000}); err != nil {
			return lat, err
		}
		wf, err := response(wid)
		var wr struct{ Status string }
		_ = json.Unmarshal(wf.Payload, &wr)
		if err != nil || !wf.OK || wr.Status != "ok" {
			return lat, fmt.Errorf("agent.wait: %v %s", err, wf.Payload)
		}
		lat = append(lat, time.Since(start))
	}
	return lat, nil
}

// loadKey is the session load client n drives.
func loadKey(n int) string { return fmt.Sprintf("agent:main:load%d", n) }
