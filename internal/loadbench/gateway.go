package loadbench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// GatewayOptions configure RunGateway.
type GatewayOptions struct {
	Clients  int
	Rate     float64 // round trips per second per client; 0 = as fast as each client can
	Duration time.Duration
	// Subscribe is "own" (each client subscribes to its session's
	// messages after its first round trip) or "all" (none subscribes: an
	// operator client then receives every event, the broadcast).
	Subscribe string
	// Idle holds the connections without requests (ticks only) and
	// reports how late the ticks arrive.
	Idle bool
	// URL and Token name a running gateway; empty URL starts one from Exe.
	URL, Token string
	Exe        string
	Progress   io.Writer
	// PID, with URL, is the running gateway's process: its RSS and CPU
	// are read from the system (/proc) instead of its /metrics, which a
	// gateway other than switchboard (OpenClaw's) does not serve.
	PID int
	// List makes each round trip one sessions.list call ({limit:
	// ListLimit}) instead of agent + agent.wait; clients subscribe to
	// nothing.
	List bool
}

// ListLimit is the page size of a List round trip.
const ListLimit = 100

// GatewayReport is what bench gateway measured.
type GatewayReport struct {
	Bench        string  `json:"bench"` // "gateway"
	Clients      int     `json:"clients"`
	Connected    int64   `json:"connected"`
	Rate         float64 `json:"ratePerClient"` // 0 = unpaced
	Subscribe    string  `json:"subscribe"`
	Idle         bool    `json:"idle"`
	List         bool    `json:"list,omitempty"` // round trips were sessions.list calls
	Seconds      float64 `json:"seconds"`
	RoundTrips   int64   `json:"roundTrips"`
	PerSecond    float64 `json:"roundTripsPerSecond"`
	TargetPerSec float64 `json:"targetPerSecond,omitempty"`
	Errors       int64   `json:"errors"`
	FirstError   string  `json:"firstError,omitempty"`
	LatencyMs    Latency `json:"latencyMs"` // scheduled start (paced) or start → agent.wait ok
	// SkippedStarts counts paced starts a client was too late for (its
	// previous round trip still ran): the offered load not served.
	SkippedStarts int64 `json:"skippedStarts,omitempty"`
	// FramesPerRoundTrip is how many frames a client read per round trip
	// (responses and events).
	FramesPerRoundTrip float64 `json:"framesPerRoundTrip,omitempty"`
	// GatewayCPUMsPerRoundTrip and ClientCPUMsPerRoundTrip are CPU time
	// (user + system) per round trip in the window: the gateway's from its
	// /metrics, the clients' (this process) from getrusage. Both share the
	// machine's cores, so their sum bounds the round trips per second.
	GatewayCPUMsPerRoundTrip float64      `json:"gatewayCpuMsPerRoundTrip,omitempty"`
	ClientCPUMsPerRoundTrip  float64      `json:"clientCpuMsPerRoundTrip,omitempty"`
	ConnectMs                Latency      `json:"connectMs"`        // dial + challenge + connect
	TickDelayMs              Latency      `json:"tickDelayMs"`      // receipt minus the tick's own ts (idle runs)
	Gateway                  GatewayStats `json:"gateway"`          // at the end of the measured window
	GatewayPeakRSS           float64      `json:"gatewayPeakRssMB"` // highest RSS sampled once a second
	Started                  bool         `json:"startedGateway"`
	Machine                  Machine      `json:"machine"`
}

// RunGateway connects opts.Clients WebSocket clients to a gateway (one it
// starts unless opts.URL is set); each drives its own session with agent
// and agent.wait at opts.Rate round trips per second for opts.Duration, or
// only holds its connection when opts.Idle.
func RunGateway(ctx context.Context, opts GatewayOptions) (rep GatewayReport, err error) {
	if opts.Clients < 1 || opts.Duration <= 0 || opts.Rate < 0 {
		return rep, errors.New("bench gateway: clients and duration must be positive, rate not negative")
	}
	switch opts.Subscribe {
	case "":
		opts.Subscribe = "own"
	case "own", "all":
	default:
		return rep, fmt.Errorf("bench gateway: --subscribe must be own or all (got %q)", opts.Subscribe)
	}
	if opts.PID > 0 && opts.URL == "" {
		return rep, errors.New("bench gateway: --pid names the process of the gateway at --url")
	}
	if opts.List {
		opts.Subscribe = "none"
	}
	rep = GatewayReport{Bench: "gateway", Clients: opts.Clients, Rate: opts.Rate, Subscribe: opts.Subscribe, Idle: opts.Idle,
		List: opts.List, Machine: thisMachine()}
	base, wsURL, token := opts.URL, "", opts.Token
	if base == "" {
		g, err := startGateway(ctx, opts.Exe, max(64, opts.Clients))
		if err != nil {
			return rep, fmt.Errorf("bench gateway: %w", err)
		}
		defer g.stop()
		base, wsURL, token = g.url, g.wsURL, g.token
		rep.Started = true
	} else {
		wsURL = "ws" + strings.TrimPrefix(strings.TrimSuffix(base, "/"), "http") + "/"
	}
	hc := &http.Client{Timeout: 10 * time.Second}
	stats := func(ctx context.Context) (GatewayStats, error) { return scrapeMetrics(ctx, hc, base, token) }
	if opts.PID > 0 {
		stats = func(context.Context) (GatewayStats, error) { return procStats(opts.PID) }
	}

	var (
		connected, done, errs atomic.Int64
		firstErr              atomic.Value
		lat, conn, ticks      recorder
	)
	fail := func(err error) {
		errs.Add(1)
		firstErr.CompareAndSwap(nil, err.Error())
	}
	// Clients connect first (at most 200 dials in flight), then all start
	// together; the measured window begins when the last has connected.
	if !opts.Idle && opts.Subscribe == "own" {
		if err := makeSetupSession(ctx, wsURL, token); err != nil {
			return rep, fmt.Errorf("bench gateway: %w", err)
		}
	}
	clients := make([]*wsClient, opts.Clients)
	var wg sync.WaitGroup
	dialSem := make(chan struct{}, 200)
	for i := range clients {
		wg.Go(func() {
			dialSem <- struct{}{}
			defer func() { <-dialSem }()
			t0 := time.Now()
			c, err := dialClient(ctx, wsURL, token)
			if err != nil {
				fail(fmt.Errorf("client %d: %w", i, err))
				return
			}
			conn.merge([]time.Duration{time.Since(t0)})
			if !opts.Idle && opts.Subscribe == "own" {
				// One unmeasured round trip creates the session, then the
				// client subscribes to it: the measured window sees only
				// subscribed clients.
				if err := c.subscribeOwn(ctx, clientKey(i)); err != nil {
					c.ws.CloseNow()
					fail(fmt.Errorf("client %d: %w", i, err))
					return
				}
			}
			connected.Add(1)
			clients[i] = c
		})
	}
	wg.Wait()
	defer func() {
		for _, c := range clients {
			if c != nil {
				c.ws.CloseNow()
			}
		}
	}()
	rep.Connected = connected.Load()
	rep.ConnectMs = summarize(conn.all)
	if err := ctx.Err(); err != nil {
		return rep, fmt.Errorf("bench gateway: %w", err)
	}

	runCtx, stop := context.WithTimeout(ctx, opts.Duration)
	defer stop()
	sampleCtx, stopSampling := context.WithCancel(ctx)
	var bg sync.WaitGroup
	what := "round trips"
	if opts.Idle {
		what = "ticks"
	}
	bg.Go(func() { progress(sampleCtx, opts.Progress, what, opts.Duration, &done, &errs) })
	// The sampler's, read after bg.Wait: the peak RSS, and the last
	// sample inside the window (at the end the clients are closing).
	var peakRSS float64
	var last GatewayStats
	bg.Go(func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-runCtx.Done():
				return
			case <-t.C:
				if st, err := stats(runCtx); err == nil {
					peakRSS = max(peakRSS, st.RSSMB)
					last = st
				}
			}
		}
	})
	before, _ := stats(ctx)
	cpu0 := selfCPU()
	var skipped atomic.Int64
	started := time.Now()
	for i, c := range clients {
		if c == nil {
			continue
		}
		wg.Go(func() {
			var mine []time.Duration
			var err error
			if opts.Idle {
				mine, err = c.idle(runCtx, &done)
				ticks.merge(mine)
			} else {
				// Spread the clients' first request over one interval.
				var offset time.Duration
				if opts.Rate > 0 {
					offset = time.Duration(float64(i%1000) / 1000 * float64(time.Second) / opts.Rate)
				}
				trip := c.roundTrip
				if opts.List {
					trip = c.listTrip
				}
				mine, err = c.drive(runCtx, ctx, trip, clientKey(i), opts.Rate, offset, &done, &skipped)
				lat.merge(mine)
			}
			if err != nil && ctx.Err() == nil {
				fail(fmt.Errorf("client %d: %w", i, err))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(started)
	clientCPU := selfCPU() - cpu0
	after, afterErr := stats(ctx)
	stopSampling()
	bg.Wait()
	rep.Gateway, rep.GatewayPeakRSS = last, peakRSS
	if last.Goroutines == 0 {
		// A window shorter than a second: sample now.
		st, err := stats(ctx)
		if err != nil {
			fail(fmt.Errorf("metrics: %w", err))
		}
		rep.Gateway, rep.GatewayPeakRSS = st, max(peakRSS, st.RSSMB)
	}
	if err := ctx.Err(); err != nil {
		return rep, fmt.Errorf("bench gateway: %w", err)
	}
	rep.Seconds = elapsed.Seconds()
	rep.Errors = errs.Load()
	if v, ok := firstErr.Load().(string); ok {
		rep.FirstError = v
	}
	if opts.Idle {
		rep.TickDelayMs = summarize(ticks.all)
	} else {
		rep.RoundTrips = int64(len(lat.all))
		rep.PerSecond = float64(rep.RoundTrips) / rep.Seconds
		rep.LatencyMs = summarize(lat.all)
		rep.SkippedStarts = skipped.Load()
		if rep.RoundTrips > 0 {
			var frames int64
			for _, c := range clients {
				if c != nil {
					frames += c.frames
				}
			}
			n := float64(rep.RoundTrips)
			rep.FramesPerRoundTrip = float64(frames) / n
			if afterErr == nil && before.CPUSeconds > 0 {
				rep.GatewayCPUMsPerRoundTrip = (after.CPUSeconds - before.CPUSeconds) * 1000 / n
			}
			if clientCPU > 0 {
				rep.ClientCPUMsPerRoundTrip = float64(clientCPU.Microseconds()) / 1000 / n
			}
		}
		if opts.Rate > 0 {
			rep.TargetPerSec = opts.Rate * float64(opts.Clients)
		}
	}
	return rep, nil
}

// wsClient is one authenticated WebSocket connection.
type wsClient struct {
	ws *websocket.Conn
	// frames counts frames read in the measured window (drive).
	frames int64
	// counting is set while drive runs.
	counting bool
}

type frame struct {
	Type    string          `json:"type"`
	ID      string          `json:"id"`
	OK      bool            `json:"ok"`
	Event   string          `json:"event"`
	Payload json.RawMessage `json:"payload"`
	Error   *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (f frame) err() string {
	if f.Error != nil {
		return f.Error.Code + ": " + f.Error.Message
	}
	return string(f.Payload)
}

// dialClient connects and completes the handshake as an operator.
func dialClient(ctx context.Context, url, token string) (*wsClient, error) {
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(dctx, url, nil)
	if err != nil {
		return nil, fmt.Errorf("dial: %w", err)
	}
	ws.SetReadLimit(64 << 20)
	c := &wsClient{ws: ws}
	if _, err := c.read(dctx); err != nil { // connect.challenge
		ws.CloseNow()
		return nil, fmt.Errorf("challenge: %w", err)
	}
	params := map[string]any{"minProtocol": 3, "maxProtocol": 4, "role": "operator",
		"scopes": []string{"operator.admin", "operator.read", "operator.write"},
		// A client id and mode of OpenClaw's connect schema, so OpenClaw's
		// own gateway accepts the benchmark too.
		"client": map[string]any{"id": "gateway-client", "displayName": "switchboard bench", "version": "1", "mode": "backend", "platform": "go"}}
	if token != "" {
		params["auth"] = map[string]any{"token": token}
	}
	if err := c.write(dctx, "c", "connect", params); err != nil {
		ws.CloseNow()
		return nil, err
	}
	if f, err := c.response(dctx, "c"); err != nil || !f.OK {
		ws.CloseNow()
		return nil, fmt.Errorf("connect: %v %s", err, f.err())
	}
	return c, nil
}

func (c *wsClient) read(ctx context.Context) (frame, error) {
	var f frame
	_, data, err := c.ws.Read(ctx)
	if err != nil {
		return f, err
	}
	if c.counting {
		c.frames++
	}
	// Events other than ticks are not this client's business: skip
	// decoding them.
	if bytes.HasPrefix(data, []byte(`{"type":"event"`)) && !bytes.Contains(data[:min(len(data), 40)], []byte(`"tick"`)) {
		f.Type = "event"
		return f, nil
	}
	return f, json.Unmarshal(data, &f)
}

func (c *wsClient) write(ctx context.Context, id, method string, params any) error {
	b, err := json.Marshal(map[string]any{"type": "req", "id": id, "method": method, "params": params})
	if err != nil {
		return err
	}
	return c.ws.Write(ctx, websocket.MessageText, b)
}

// response reads frames, skipping events, until the res with id.
func (c *wsClient) response(ctx context.Context, id string) (frame, error) {
	for {
		f, err := c.read(ctx)
		if err != nil {
			return f, err
		}
		if f.Type == "res" && f.ID == id {
			return f, nil
		}
	}
}

// drive runs round trips on key until runCtx ends: agent (ack, then final
// res), then agent.wait for the run. A round trip that started finishes
// under ctx. With rate > 0 it starts one every 1/rate, and a round trip's
// latency counts from when it was due, not from when the client got to it
// (a client still busy with the previous one would otherwise hide the
// gateway's queueing); a start it is a whole interval late for is skipped
// and counted in skipped.
func (c *wsClient) drive(runCtx, ctx context.Context, trip func(context.Context, string, int) (tripTimes, error), key string, rate float64, offset time.Duration, done, skipped *atomic.Int64) ([]time.Duration, error) {
	c.counting = true
	defer func() { c.counting = false }()
	var lat []time.Duration
	var interval time.Duration
	if rate > 0 {
		interval = time.Duration(float64(time.Second) / rate)
	}
	next := time.Now().Add(offset)
	for i := 0; ; i++ {
		due := time.Now()
		if interval > 0 {
			if wait := time.Until(next); wait > 0 {
				t := time.NewTimer(wait)
				select {
				case <-runCtx.Done():
					t.Stop()
					return lat, nil
				case <-t.C:
				}
			}
			due = next
			next = next.Add(interval)
			if late := time.Since(next); late >= 0 {
				n := int64(late/interval) + 1
				skipped.Add(n)
				next = next.Add(time.Duration(n) * interval)
			}
		}
		if runCtx.Err() != nil {
			return lat, nil
		}
		rctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		end, err := trip(rctx, key, i)
		cancel()
		if err != nil {
			return lat, err
		}
		if interval == 0 {
			due = end.start
		}
		lat = append(lat, end.at.Sub(due))
		done.Add(1)
	}
}

// clientKey is client i's session.
func clientKey(i int) string { return "agent:main:bench" + strconv.Itoa(i) }

// setupKey is a session every "own" client subscribes to while it
// creates its own: a client that holds a subscription is off the
// broadcast, so the setup round trips of a thousand clients do not reach
// every other client (N² frames, still arriving in the measured window).
const setupKey = "agent:main:bench-setup"

// makeSetupSession creates setupKey with one round trip.
func makeSetupSession(ctx context.Context, url, token string) error {
	c, err := dialClient(ctx, url, token)
	if err != nil {
		return err
	}
	defer c.ws.CloseNow()
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if _, err := c.roundTrip(ctx, setupKey, -1); err != nil {
		return fmt.Errorf("setup session: %w", err)
	}
	return nil
}

// subscribeOwn makes one round trip on key (creating the session) and
// subscribes to the session's messages: from then on only its events and
// this client's runs' come. Meanwhile it holds a subscription to
// setupKey, which keeps it off the broadcast.
func (c *wsClient) subscribeOwn(ctx context.Context, key string) error {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := c.call(ctx, "s0", "sessions.messages.subscribe", map[string]any{"key": setupKey}); err != nil {
		return err
	}
	if _, err := c.roundTrip(ctx, key, -1); err != nil {
		return fmt.Errorf("first round trip: %w", err)
	}
	if err := c.call(ctx, "s", "sessions.messages.subscribe", map[string]any{"key": key}); err != nil {
		return err
	}
	return c.call(ctx, "s1", "sessions.messages.unsubscribe", map[string]any{"key": setupKey})
}

// call sends a request and waits for its ok response.
func (c *wsClient) call(ctx context.Context, id, method string, params any) error {
	if err := c.write(ctx, id, method, params); err != nil {
		return err
	}
	f, err := c.response(ctx, id)
	if err == nil && !f.OK {
		err = fmt.Errorf("%s: %s", method, f.err())
	}
	return err
}

// tripTimes are when a round trip started and ended.
type tripTimes struct{ start, at time.Time }

func (c *wsClient) roundTrip(ctx context.Context, key string, i int) (tripTimes, error) {
	start := time.Now()
	id := "a" + strconv.Itoa(i)
	if err := c.write(ctx, id, "agent", map[string]any{"message": "load", "sessionKey": key, "idempotencyKey": key + "-" + strconv.Itoa(i)}); err != nil {
		return tripTimes{}, err
	}
	ack, err := c.response(ctx, id)
	if err != nil || !ack.OK {
		return tripTimes{}, fmt.Errorf("agent: %v %s", err, ack.err())
	}
	var acc struct {
		RunID string `json:"runId"`
	}
	_ = json.Unmarshal(ack.Payload, &acc)
	final, err := c.response(ctx, id)
	if err != nil || !final.OK {
		return tripTimes{}, fmt.Errorf("agent final: %v %s", err, final.err())
	}
	wid := "w" + strconv.Itoa(i)
	if err := c.write(ctx, wid, "agent.wait", map[string]any{"runId": acc.RunID, "timeoutMs": 30000}); err != nil {
		return tripTimes{}, err
	}
	wf, err := c.response(ctx, wid)
	var wr struct {
		Status string `json:"status"`
	}
	_ = json.Unmarshal(wf.Payload, &wr)
	if err != nil || !wf.OK || wr.Status != "ok" {
		return tripTimes{}, fmt.Errorf("agent.wait: %v %s", err, wf.err())
	}
	return tripTimes{start: start, at: time.Now()}, nil
}

// listTrip is one sessions.list call of a List run.
func (c *wsClient) listTrip(ctx context.Context, _ string, i int) (tripTimes, error) {
	start := time.Now()
	id := "l" + strconv.Itoa(i)
	if err := c.write(ctx, id, "sessions.list", map[string]any{"limit": ListLimit}); err != nil {
		return tripTimes{}, err
	}
	f, err := c.response(ctx, id)
	if err != nil || !f.OK {
		return tripTimes{}, fmt.Errorf("sessions.list: %v %s", err, f.err())
	}
	return tripTimes{start: start, at: time.Now()}, nil
}

// idle reads frames until runCtx ends and returns, for each tick, how long
// after its ts it arrived.
func (c *wsClient) idle(runCtx context.Context, done *atomic.Int64) ([]time.Duration, error) {
	var delays []time.Duration
	for {
		f, err := c.read(runCtx)
		if err != nil {
			if runCtx.Err() != nil {
				return delays, nil
			}
			return delays, err
		}
		if f.Type == "event" && f.Event == "tick" {
			var p struct {
				TS int64 `json:"ts"`
			}
			if json.Unmarshal(f.Payload, &p) == nil && p.TS > 0 {
				delays = append(delays, time.Since(time.UnixMilli(p.TS)))
				done.Add(1)
			}
		}
	}
}
