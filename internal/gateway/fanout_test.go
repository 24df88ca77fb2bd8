//go:build linux

package gateway_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/switchboard-go/switchboard/internal/config"
)

// dialStalled opens a WebSocket whose receive buffer is tiny, does the
// handshake, and then never reads: the server's writes to it block once
// its socket buffers fill.
func (e *env) dialStalled(t *testing.T) *websocket.Conn {
	t.Helper()
	dialer := &net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		var serr error
		err := rc.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
		})
		if err != nil {
			return err
		}
		return serr
	}}
	hc := &http.Client{Transport: &http.Transport{DialContext: dialer.DialContext}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, e.ws, &websocket.DialOptions{HTTPClient: hc})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { _ = c.CloseNow() })
	c.SetReadLimit(64 << 20)
	if _, _, err := c.Read(ctx); err != nil { // connect.challenge
		t.Fatal(err)
	}
	hello := `{"type":"req","id":"c","method":"connect","params":{"minProtocol":4,"maxProtocol":4,"role":"operator",` +
		`"client":{"id":"stalled","version":"1","mode":"test","platform":"linux"}}}`
	if err := c.Write(ctx, websocket.MessageText, []byte(hello)); err != nil {
		t.Fatal(err)
	}
	if _, data, err := c.Read(ctx); err != nil || !strings.Contains(string(data), `"hello-ok"`) {
		t.Fatalf("handshake: %s, %v", data, err)
	}
	return c
}

// wsConnections reads the open-connection gauge from /metrics.
func (e *env) wsConnections(t *testing.T) string {
	t.Helper()
	resp, err := e.hc.Get(e.url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "switchboard_ws_connections "); ok {
			return v
		}
	}
	t.Fatal("no switchboard_ws_connections in /metrics")
	return ""
}

// TestSlowClientLosesEvents: a client that never reads stalls its own
// connection only (fanout.go). While it is stalled — its socket full, its
// event queue overflowing — a fast client's requests are answered and it
// gets every event of every run, in time; the stalled connection is then
// cut off — its queue overflowing (slow consumer) or the write timeout,
// whichever comes first — having lost events.
func TestSlowClientLosesEvents(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out the gateway's write timeout")
	}
	big := strings.Repeat("x", 256<<10)
	e := newEnv(t, envOptions{rules: []config.ScriptRule{{When: config.ScriptWhen{Message: "^big"}, Reply: &big}}})
	fast, _ := e.connect(t, nil)
	// Megabytes of replies under -race on a loaded CI machine can take
	// more than the default 10 s between two frames; a fanout held by the
	// stalled client for good still fails.
	fast.patience = 60 * time.Second
	stalled := e.dialStalled(t)

	// runs starts the runs and waits for each one's end event on the fast
	// client; every wait has the fast client's patience (60 s per frame). A
	// fanout that waited for the stalled client would hold the fast one
	// until the stalled one's write timeout — and, holding the fanout's
	// lock, for good.
	var maxSeq int64
	runs := func(prefix string, n int) {
		t.Helper()
		want := map[string]bool{}
		for i := range n {
			var ack struct{ RunID, Status string }
			fast.ok("agent", map[string]any{"message": fmt.Sprintf("%s %d", prefix, i), "sessionKey": fmt.Sprintf("agent:main:%s-%d", prefix, i),
				"idempotencyKey": fmt.Sprintf("%s-%d", prefix, i)}, &ack)
			want[ack.RunID] = true
		}
		for len(want) > 0 {
			f := fast.wait(func(f frame) bool {
				if f.Seq != nil {
					maxSeq = max(maxSeq, *f.Seq)
				}
				return f.Event == "agent"
			})
			var p struct {
				RunID  string         `json:"runId"`
				Stream string         `json:"stream"`
				Data   map[string]any `json:"data"`
			}
			f.decode(t, &p)
			if p.Stream == "lifecycle" && p.Data["phase"] == "end" {
				delete(want, p.RunID)
			}
		}
	}
	// Megabytes of events fill the stalled client's socket...
	runs("big", 24)
	// ...then enough small runs to overflow its event queue (1024).
	for i := range 5 {
		runs(fmt.Sprintf("small%d", i), 60)
	}
	// Every event the fast client got carries the next seq: the highest is
	// the number of events published to it.
	var last int64
	for _, f := range append(fast.pending, drainAll(fast.frames)...) {
		if f.Seq != nil {
			last = max(last, *f.Seq)
		}
	}
	last = max(last, maxSeq)

	// The stalled client is cut off (its queue overflowed, or the write
	// timeout of 10 s) rather than kept, its events lost.
	cut := time.Now().Add(60 * time.Second)
	for e.wsConnections(t) != "1" {
		if time.Now().After(cut) {
			t.Fatalf("the stalled connection is still open (%s connections)", e.wsConnections(t))
		}
		time.Sleep(100 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	got := 0
	for {
		_, _, err := stalled.Read(ctx)
		if err != nil {
			if ctx.Err() != nil {
				t.Fatal("the stalled connection did not end")
			}
			break
		}
		got++
	}
	if got >= int(last) {
		t.Errorf("the stalled client read %d frames of %d events: it lost none", got, last)
	}
	t.Logf("fast client: %d events; stalled client: %d frames before the cut", last, got)
}

// drainAll returns the frames queued in ch.
func drainAll(ch chan frame) []frame {
	var out []frame
	for f := range drain(ch) {
		out = append(out, f)
	}
	return out
}
