package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestConcurrentClientsNoErrors is the test-sized version of
// BenchmarkConcurrentClients: 20 WebSocket clients at once, each doing a
// fixed number of `agent` + `agent.wait` round trips on its own session,
// see no error at all — every request answered ok, every wait "ok" — and
// afterwards the store holds exactly those runs, each ended ok.
func TestConcurrentClientsNoErrors(t *testing.T) {
	const clients, rounds = 20, 10
	e := newEnv(t, envOptions{cfg: func(c *config.Config) {
		c.Runtime.Lanes = config.LaneLimits{Main: clients, Nested: 8, Subagent: 8}
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	runIDs := make([][]string, clients)
	errs := make([]error, clients)
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			runIDs[c], errs[c] = boundedLoadClient(ctx, e.ws, c, rounds)
		}(c)
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("client errors under load: %v", err)
	}
	for c, ids := range runIDs {
		key := fmt.Sprintf("agent:main:load%d", c)
		runs, err := e.store.ListRuns(ctx, domain.RunQuery{SessionKey: key})
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != rounds || len(ids) != rounds {
			t.Fatalf("%s: %d runs stored, %d acknowledged, want %d", key, len(runs), len(ids), rounds)
		}
		acked := map[string]bool{}
		for _, id := range ids {
			acked[id] = true
		}
		for _, r := range runs {
			if !acked[r.ID] || r.Status != domain.RunOK {
				t.Fatalf("%s: run %s (acknowledged %v) ended %s %q", key, r.ID, acked[r.ID], r.Status, r.Error)
			}
		}
	}
}

// boundedLoadClient connects and does rounds `agent` → final res →
// `agent.wait` round trips on session load<n>. It returns the run ids and
// the first error (a refused request, a wait that is not ok, an I/O error).
func boundedLoadClient(ctx context.Context, url string, n, rounds int) ([]string, error) {
	c, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		return nil, fmt.Errorf("client %d: dial: %w", n, err)
	}
	defer c.CloseNow()
	c.SetReadLimit(64 << 20)
	// response reads frames, skipping events, until the res with id.
	response := func(id string) (loadFrame, error) {
		for {
			var f loadFrame
			_, data, err := c.Read(ctx)
			if err != nil {
				return f, err
			}
			if err := json.Unmarshal(data, &f); err != nil {
				return f, fmt.Errorf("frame %s: %w", data, err)
			}
			if f.Type == "res" && f.ID == id {
				return f, nil
			}
		}
	}
	call := func(id, method string, params any) (loadFrame, error) {
		b, err := json.Marshal(map[string]any{"type": "req", "id": id, "method": method, "params": params})
		if err != nil {
			return loadFrame{}, err
		}
		if err := c.Write(ctx, websocket.MessageText, b); err != nil {
			return loadFrame{}, err
		}
		f, err := response(id)
		if err == nil && !f.OK {
			err = fmt.Errorf("%s refused: %+v", method, f.Error)
		}
		return f, err
	}
	var f loadFrame
	if _, data, err := c.Read(ctx); err != nil || json.Unmarshal(data, &f) != nil || f.Event != "connect.challenge" {
		return nil, fmt.Errorf("client %d: want connect.challenge, got %s (%v)", n, data, err)
	}
	if _, err := call("c", "connect", map[string]any{"minProtocol": 3, "maxProtocol": 4, "role": "operator",
		"client": map[string]any{"id": "test", "version": "1", "mode": "test", "platform": "linux"}}); err != nil {
		return nil, fmt.Errorf("client %d: %w", n, err)
	}
	var ids []string
	for i := 0; i < rounds; i++ {
		id := fmt.Sprintf("a%d", i)
		ack, err := call(id, "agent", map[string]any{"message": "load", "sessionKey": fmt.Sprintf("agent:main:load%d", n), "idempotencyKey": fmt.Sprintf("c%d-%d", n, i)})
		if err != nil {
			return ids, fmt.Errorf("client %d round %d: agent ack: %w", n, i, err)
		}
		var acc struct{ RunID string }
		if err := json.Unmarshal(ack.Payload, &acc); err != nil || acc.RunID == "" {
			return ids, fmt.Errorf("client %d round %d: ack without a runId: %s", n, i, ack.Payload)
		}
		if final, err := response(id); err != nil || !final.OK {
			return ids, fmt.Errorf("client %d round %d: agent final: %v %+v", n, i, err, final.Error)
		}
		wf, err := call(fmt.Sprintf("w%d", i), "agent.wait", map[string]any{"runId": acc.RunID, "timeoutMs": 30000})
		if err != nil {
			return ids, fmt.Errorf("client %d round %d: agent.wait: %w", n, i, err)
		}
		var wr struct{ Status string }
		if err := json.Unmarshal(wf.Payload, &wr); err != nil || wr.Status != "ok" {
			return ids, fmt.Errorf("client %d round %d: agent.wait: %s", n, i, wf.Payload)
		}
		ids = append(ids, acc.RunID)
	}
	return ids, nil
}
