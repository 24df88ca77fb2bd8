package gateway

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// replyConn is a conn on a real WebSocket whose pump does not run: the
// test drains its response queue itself. The client end is returned too.
func replyConn(t *testing.T, maxBuffered int64) (*conn, *websocket.Conn) {
	t.Helper()
	accepted := make(chan *conn, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cw := &corkingWriter{ResponseWriter: w}
		ws, err := websocket.Accept(cw, r, nil)
		if err != nil {
			t.Error(err)
			return
		}
		ctx, cancel := context.WithCancel(context.Background())
		s := &Server{opts: Options{MaxBufferedBytes: maxBuffered}, log: slog.New(slog.DiscardHandler)}
		c := &conn{s: s, ws: ws, sock: cw.conn, ctx: ctx, cancel: cancel, kick: make(chan struct{}, 1)}
		accepted <- c
		<-ctx.Done()
	}))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	client, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.CloseNow() })
	select {
	case c := <-accepted:
		t.Cleanup(c.cancel)
		return c, client
	case <-ctx.Done():
		t.Fatal("no connection accepted")
	}
	return nil, nil
}

// TestRepliesLeaveInOrderWithOneKick: queued responses wait for the pump,
// one kick tells it about all of them, and a batch writes them in the
// order they were queued.
func TestRepliesLeaveInOrderWithOneKick(t *testing.T) {
	c, client := replyConn(t, 1<<20)
	for _, r := range []string{`{"n":1}`, `{"n":2}`, `{"n":3}`} {
		if err := c.queueReply([]byte(r)); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-c.kick:
	default:
		t.Fatal("queued responses did not kick the pump")
	}
	select {
	case <-c.kick:
		t.Fatal("more than one kick pending")
	default:
	}
	if err := c.eventBatch(nil, make(chan wireEvent)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, want := range []string{`{"n":1}`, `{"n":2}`, `{"n":3}`} {
		_, b, err := client.Read(ctx)
		if err != nil || string(b) != want {
			t.Fatalf("read %q, %v; want %s", b, err, want)
		}
	}
	if c.replyBytes != 0 || len(c.replies) != 0 {
		t.Fatalf("queue not emptied: %d bytes, %d replies", c.replyBytes, len(c.replies))
	}
}

// TestRepliesUnreadCutOff: a client whose unsent responses pass
// maxBufferedBytes is cut off instead of the queue growing; a single
// response larger than the bound still goes.
func TestRepliesUnreadCutOff(t *testing.T) {
	c, client := replyConn(t, 1000)
	// The client reads (so the close handshake completes at once).
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			if _, _, err := client.Read(context.Background()); err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { _ = client.CloseNow(); <-done })
	if err := c.queueReply(make([]byte, 1500)); err != nil {
		t.Fatalf("a lone large response was refused: %v", err)
	}
	err := c.queueReply(make([]byte, 10))
	if err == nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("queueing past the bound = %v, want a cancelled connection", err)
	}
	if c.ctx.Err() == nil {
		t.Fatal("the connection was not closed")
	}
	if len(c.replies) != 1 {
		t.Fatalf("%d responses queued after the cut", len(c.replies))
	}
}
