package discord

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	disgogw "github.com/disgoorg/disgo/gateway"
)

// GatewayState is where the gateway connection is.
type GatewayState string

// Gateway states, as `channels status` shows them.
const (
	StateStopped    GatewayState = "stopped"
	StateConnecting GatewayState = "connecting"
	StateReady      GatewayState = "ready"
	StateRetrying   GatewayState = "retrying"
	// StateFailed is final: Discord refused the token or the intents.
	StateFailed GatewayState = "failed"
)

// helloTimeout bounds the wait for HELLO after the socket opened.
const helloTimeout = 30 * time.Second

// DispatchFunc receives one gateway dispatch (op 0) in the order Discord
// sent it, from one goroutine: the next dispatch waits until it returns.
// The read loop hands dispatches over through a queue, so a slow handler
// does not hold up heartbeat acknowledgements.
type DispatchFunc func(ctx context.Context, event string, d json.RawMessage)

// GatewayConfig configures a Gateway. URL, Token and Dispatch are
// required.
type GatewayConfig struct {
	// URL is the gateway's base URL (Discord's is wss://gateway.discord.gg);
	// ?v=10&encoding=json is appended.
	URL      string
	Token    string
	Intents  disgogw.Intents
	Dispatch DispatchFunc
	// HTTPClient dials the websocket (nil: http.DefaultClient).
	HTTPClient *http.Client
	Logger     *slog.Logger
	// Backoff is the wait before reconnect attempt n (from 1); nil is
	// 1 s doubling to 60 s, with jitter.
	Backoff func(n int) time.Duration
}

// Gateway is one Discord Gateway session: identify, heartbeat, and on a
// lost connection reconnect and resume (at resume_gateway_url) so the
// dispatches Discord still buffers are not lost. Run owns every goroutine
// it starts.
type Gateway struct {
	cfg GatewayConfig

	mu        sync.Mutex
	sessionID string
	resumeURL string
	seq       int
	hasSeq    bool
	state     GatewayState
	lastErr   string
	botUserID string
	connects  int
	resumes   int
}

// NewGateway builds a gateway; Run connects it.
func NewGateway(cfg GatewayConfig) (*Gateway, error) {
	if cfg.URL == "" || cfg.Token == "" || cfg.Dispatch == nil {
		return nil, errors.New("discord gateway: URL, Token and Dispatch are required")
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = http.DefaultClient
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Backoff == nil {
		cfg.Backoff = defaultBackoff
	}
	return &Gateway{cfg: cfg, state: StateStopped}, nil
}

func defaultBackoff(n int) time.Duration {
	d := time.Second << min(max(n, 1)-1, 6)
	d = min(d, time.Minute)
	return d/2 + rand.N(d/2+1)
}

// GatewayStatus is a snapshot of the connection for status surfaces.
type GatewayStatus struct {
	State     GatewayState `json:"state"`
	LastError string       `json:"lastError,omitempty"`
	BotUserID string       `json:"botUserId,omitempty"`
	Connects  int          `json:"connects"`
	Resumes   int          `json:"resumes"`
}

// Status returns the connection's state.
func (g *Gateway) Status() GatewayStatus {
	g.mu.Lock()
	defer g.mu.Unlock()
	return GatewayStatus{State: g.state, LastError: g.lastErr, BotUserID: g.botUserID, Connects: g.connects, Resumes: g.resumes}
}

// BotUserID is the bot's user id from READY ("" before it).
func (g *Gateway) BotUserID() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.botUserID
}

// FatalError is a close Discord sends when reconnecting cannot help
// (authentication failed, intents refused, …).
type FatalError struct {
	Code   websocket.StatusCode
	Reason string
}

func (e *FatalError) Error() string {
	return fmt.Sprintf("discord gateway closed with %d %s", e.Code, e.Reason)
}

// fatalCloses are the close codes after which Discord says not to
// reconnect.
var fatalCloses = map[websocket.StatusCode]string{
	4004: "authentication failed (check channels.discord.token)",
	4010: "invalid shard",
	4011: "sharding required",
	4012: "invalid API version",
	4013: "invalid intents",
	4014: "disallowed intents (enable them in the Discord developer portal, or turn them off in channels.discord.intents)",
}

// Run connects and keeps the session up until ctx ends (nil) or Discord
// refuses it for good (a *FatalError).
func (g *Gateway) Run(ctx context.Context) error {
	defer g.setState(StateStopped, "")
	// One dispatcher for the whole run keeps the order across reconnects.
	events := make(chan dispatch, dispatchQueue)
	dctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-dctx.Done():
				return
			case e := <-events:
				g.cfg.Dispatch(dctx, e.event, e.d)
			}
		}
	})
	defer func() {
		stop()
		wg.Wait()
	}()
	failures := 0
	for {
		g.setState(StateConnecting, "")
		ready, err := g.session(ctx, events)
		if ctx.Err() != nil {
			return nil
		}
		var fatal *FatalError
		if errors.As(err, &fatal) {
			g.setState(StateFailed, err.Error())
			g.cfg.Logger.Error("discord gateway: giving up", "err", err)
			return err
		}
		if ready {
			failures = 0
		}
		failures++
		wait := g.cfg.Backoff(failures)
		g.setState(StateRetrying, errText(err))
		g.cfg.Logger.Warn("discord gateway: connection lost, reconnecting", "err", err, "in", wait)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func (g *Gateway) setState(s GatewayState, lastErr string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.state == StateFailed && s == StateStopped {
		return // keep the reason visible
	}
	g.state = s
	if lastErr != "" {
		g.lastErr = lastErr
	}
}

// dispatchQueue is how many dispatches may wait for the handler before
// the read loop waits too.
const dispatchQueue = 256

type dispatch struct {
	event string
	d     json.RawMessage
}

// errReconnect is Discord's op 7: reconnect and resume.
var errReconnect = errors.New("discord asked to reconnect")

// session runs one websocket connection to its end. ready reports whether
// it reached READY or RESUMED (the backoff starts over).
func (g *Gateway) session(ctx context.Context, events chan<- dispatch) (ready bool, err error) {
	g.mu.Lock()
	url, resuming := g.cfg.URL, g.sessionID != "" && g.hasSeq
	if resuming && g.resumeURL != "" {
		url = g.resumeURL
	}
	resume := disgogw.MessageDataResume{Token: g.cfg.Token, SessionID: g.sessionID, Seq: g.seq}
	g.connects++
	g.mu.Unlock()

	dialURL := strings.TrimRight(url, "/") + "?v=10&encoding=json"
	c, _, err := websocket.Dial(ctx, dialURL, &websocket.DialOptions{HTTPClient: g.cfg.HTTPClient})
	if err != nil {
		return false, fmt.Errorf("discord gateway: dial: %w", err)
	}
	defer c.CloseNow()
	c.SetReadLimit(maxFrameBytes)

	sctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()

	hctx, hcancel := context.WithTimeout(sctx, helloTimeout)
	f, err := readFrame(hctx, c)
	hcancel()
	if err != nil {
		return false, g.closeErr(err)
	}
	var h hello
	if f.Op != opHello || json.Unmarshal(f.D, &h) != nil || h.HeartbeatInterval <= 0 {
		return false, fmt.Errorf("discord gateway: want HELLO first, got op %d", f.Op)
	}

	var acked atomic.Bool
	acked.Store(true)
	wg.Go(func() { g.heartbeat(sctx, c, time.Duration(h.HeartbeatInterval)*time.Millisecond, &acked) })

	if resuming {
		err = writeOp(sctx, c, opResume, resume)
	} else {
		err = writeOp(sctx, c, opIdentify, disgogw.MessageDataIdentify{
			Token:      g.cfg.Token,
			Properties: disgogw.IdentifyCommandDataProperties{OS: runtime.GOOS, Browser: "switchboard", Device: "switchboard"},
			Intents:    g.cfg.Intents,
		})
	}
	if err != nil {
		return false, fmt.Errorf("discord gateway: send identify/resume: %w", err)
	}

	for {
		f, err := readFrame(sctx, c)
		if err != nil {
			if ctx.Err() != nil {
				// Shutting down: a normal close ends the session at Discord.
				_ = c.Close(websocket.StatusNormalClosure, "shutting down")
				return ready, nil
			}
			return ready, g.closeErr(err)
		}
		switch f.Op {
		case opDispatch:
			g.mu.Lock()
			if f.S != nil {
				g.seq, g.hasSeq = *f.S, true
			}
			switch f.T {
			case "READY":
				var r readyEvent
				if err := json.Unmarshal(f.D, &r); err == nil {
					g.sessionID, g.resumeURL, g.botUserID = r.SessionID, r.ResumeGatewayURL, r.User.ID
				}
				g.state, ready = StateReady, true
			case "RESUMED":
				g.resumes++
				g.state, ready = StateReady, true
			}
			g.mu.Unlock()
			select {
			case events <- dispatch{f.T, f.D}:
			case <-sctx.Done():
			}
		case opHeartbeat:
			if err := g.sendHeartbeat(sctx, c); err != nil {
				return ready, fmt.Errorf("discord gateway: heartbeat: %w", err)
			}
		case opHeartbeatAck:
			acked.Store(true)
		case opReconnect:
			_ = c.Close(websocket.StatusCode(4000), "reconnecting")
			return ready, errReconnect
		case opInvalidSession:
			var resumable bool
			_ = json.Unmarshal(f.D, &resumable)
			if !resumable {
				g.forgetSession()
			}
			_ = c.Close(websocket.StatusCode(4000), "invalid session")
			return ready, fmt.Errorf("discord gateway: invalid session (resumable %v)", resumable)
		}
	}
}

// forgetSession drops the resume state: the next connection identifies.
func (g *Gateway) forgetSession() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.sessionID, g.resumeURL, g.seq, g.hasSeq = "", "", 0, false
}

// closeErr turns a read error into the session's end: a fatal close
// becomes a *FatalError, a close that invalidates the session forgets it.
func (g *Gateway) closeErr(err error) error {
	code := websocket.CloseStatus(err)
	if reason, ok := fatalCloses[code]; ok {
		return &FatalError{Code: code, Reason: reason}
	}
	if code == 4007 || code == 4009 { // invalid seq, session timed out
		g.forgetSession()
	}
	return fmt.Errorf("discord gateway: read: %w", err)
}

// heartbeat sends op 1 every interval (the first after a random part of
// it, as Discord asks). A heartbeat that was not acknowledged before the
// next one is due means a zombie connection: it is closed, and Run
// resumes on a new one.
func (g *Gateway) heartbeat(ctx context.Context, c *websocket.Conn, interval time.Duration, acked *atomic.Bool) {
	t := time.NewTimer(time.Duration(rand.Int64N(int64(interval)) + 1))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if !acked.Swap(false) {
			g.cfg.Logger.Warn("discord gateway: heartbeat not acknowledged, reconnecting")
			c.CloseNow()
			return
		}
		if err := g.sendHeartbeat(ctx, c); err != nil {
			c.CloseNow()
			return
		}
		t.Reset(interval)
	}
}

func (g *Gateway) sendHeartbeat(ctx context.Context, c *websocket.Conn) error {
	g.mu.Lock()
	var d any // null before the first dispatch
	if g.hasSeq {
		d = g.seq
	}
	g.mu.Unlock()
	return writeOp(ctx, c, opHeartbeat, d)
}

// writeTimeout bounds one frame's write.
const writeTimeout = 10 * time.Second

func writeOp(ctx context.Context, c *websocket.Conn, op int, d any) error {
	b, err := json.Marshal(struct {
		Op int `json:"op"`
		D  any `json:"d"`
	}{op, d})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	return c.Write(ctx, websocket.MessageText, b)
}

func readFrame(ctx context.Context, c *websocket.Conn) (frame, error) {
	for {
		typ, b, err := c.Read(ctx)
		if err != nil {
			return frame{}, err
		}
		if typ != websocket.MessageText {
			continue // this package asks for uncompressed JSON
		}
		f, err := decodeFrame(b)
		if err != nil {
			return frame{}, err
		}
		return f, nil
	}
}
