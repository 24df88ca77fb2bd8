package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/model"
)

// stampModel is a streaming provider whose first delta is the wall-clock
// time (Unix nanoseconds) at which it produced it, so a client in the
// same process measures provider → WebSocket latency exactly. With rest
// set it goes on streaming for that long after the first delta, as a
// remote model does, before it ends its answer (the time is the
// simulated provider's, not a wait for something in the test).
type stampModel struct{ rest time.Duration }

func (stampModel) Name() string                   { return "stamp" }
func (stampModel) ThinkingLevels(string) []string { return []string{"off"} }
func (m stampModel) Complete(ctx context.Context, req domain.ModelRequest) (domain.ModelResponse, error) {
	text := "done"
	if req.OnDelta != nil {
		text = strconv.FormatInt(time.Now().UnixNano(), 10)
		req.OnDelta(domain.ModelDelta{Text: text})
		if m.rest > 0 {
			select {
			case <-time.After(m.rest):
			case <-ctx.Done():
				return domain.ModelResponse{}, ctx.Err()
			}
		}
	}
	return domain.ModelResponse{Message: domain.Message{Role: domain.RoleAssistant, Content: domain.BlockContent(domain.TextBlock(text)),
		StopReason: domain.StopReasonStop, Provider: "stamp", Model: req.Model, Timestamp: time.Now().UnixMilli()}}, nil
}

// BenchmarkFirstDeltaLatency measures how long the first streamed delta
// takes from the provider producing it to a WebSocket client reading its
// `agent` assistant event (runtime → engine bus → fan-out → encode →
// socket → client decode), one run at a time, with 50 other operator
// clients connected, each subscribed to sessions.changed. Reports p50/p99.
func BenchmarkFirstDeltaLatency(b *testing.B) { benchFirstDelta(b, stampModel{}) }

// BenchmarkFirstDeltaLatencyStreaming is the same with a model that goes
// on streaming for 10 ms after its first delta: a turn whose answer is
// not complete at once, whose first delta must not wait for its end (or
// for the quick turn's grace) to be shown.
func BenchmarkFirstDeltaLatencyStreaming(b *testing.B) {
	benchFirstDelta(b, stampModel{rest: 10 * time.Millisecond})
}

func benchFirstDelta(b *testing.B, m stampModel) {
	e := newEnv(b, envOptions{
		register: func(r *model.Registry) { r.Register(m) },
		cfg:      func(c *config.Config) { c.Agents.Defaults.Model = "stamp/x" },
	})
	for range 50 {
		idle, _ := e.connect(b, nil)
		idle.ok("sessions.subscribe", map[string]any{}, nil)
	}
	ctx := context.Background()
	c, _, err := websocket.Dial(ctx, e.ws, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer c.CloseNow()
	c.SetReadLimit(64 << 20)
	read := func() []byte {
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		_, data, err := c.Read(rctx)
		if err != nil {
			b.Fatal(err)
		}
		return data
	}
	write := func(id, method string, params any) {
		buf, _ := json.Marshal(map[string]any{"type": "req", "id": id, "method": method, "params": params})
		if err := c.Write(ctx, websocket.MessageText, buf); err != nil {
			b.Fatal(err)
		}
	}
	read() // challenge
	write("c", "connect", map[string]any{"minProtocol": 3, "maxProtocol": 4, "role": "operator",
		"client": map[string]any{"id": "test", "version": "1", "mode": "test", "platform": "linux"}})
	read()
	// Subscribe to the one session so the client gets its events only.
	write("w", "agent", map[string]any{"message": "warm", "sessionKey": "agent:main:lat", "idempotencyKey": "warm"})
	for n := 0; n < 2; {
		if f := read(); bytes.Contains(f, []byte(`"id":"w"`)) {
			if !bytes.Contains(f, []byte(`"ok":true`)) {
				b.Fatalf("warm-up run: %s", f)
			}
			n++
		}
	}
	write("s", "sessions.messages.subscribe", map[string]any{"key": "agent:main:lat"})

	var lat []time.Duration
	i := 0
	for b.Loop() {
		i++
		id := fmt.Sprintf("a%d", i)
		write(id, "agent", map[string]any{"message": "go", "sessionKey": "agent:main:lat", "idempotencyKey": id})
		got, final := false, false
		for !got || !final {
			f := read()
			if !got && bytes.Contains(f, []byte(`"stream":"assistant"`)) && bytes.Contains(f, []byte(`"delta":"`)) {
				now := time.Now()
				var ev struct {
					Payload struct {
						Data struct{ Delta string } `json:"data"`
					} `json:"payload"`
				}
				if err := json.Unmarshal(f, &ev); err != nil {
					b.Fatal(err)
				}
				ns, err := strconv.ParseInt(ev.Payload.Data.Delta, 10, 64)
				if err != nil {
					b.Fatalf("delta %q: %v", ev.Payload.Data.Delta, err)
				}
				lat = append(lat, now.Sub(time.Unix(0, ns)))
				got = true
			}
			if bytes.Contains(f, []byte(`"type":"res","id":"`+id+`"`)) && !bytes.Contains(f, []byte(`"accepted"`)) {
				final = true
			}
		}
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.5), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(0, "ns/op")
}
