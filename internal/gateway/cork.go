package gateway

import (
	"bufio"
	"net"
	"net/http"
	"sync"
	"time"
)

// corkConn is a WebSocket connection's socket as the WebSocket library
// sees it. The library flushes every frame with its own write system call;
// while the event pump holds the cork, frames collect here and leave in
// one write when it lets go. Under load a round trip's ~6 events then cost
// one system call instead of six (writes were a fifth of the gateway's CPU
// per round trip at 200 clients).
//
// Every write to the socket, corked or not, has writeTimeout as its
// deadline: a client that stops reading is cut off.
type corkConn struct {
	net.Conn
	mu     sync.Mutex
	corked bool
	buf    []byte
}

// corkMaxKeep is the largest buffer kept between batches: a run's
// events are a few KiB, and thousands of connections each keeping a
// burst's buffer would add up.
const corkMaxKeep = 8 << 10

// Write buffers p while corked and writes it through otherwise.
func (c *corkConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.corked {
		c.buf = append(c.buf, p...)
		return len(p), nil
	}
	return c.writeLocked(p)
}

func (c *corkConn) writeLocked(p []byte) (int, error) {
	if err := c.Conn.SetWriteDeadline(time.Now().Add(writeTimeout)); err != nil {
		return 0, err
	}
	return c.Conn.Write(p)
}

// cork starts collecting writes.
func (c *corkConn) cork() {
	c.mu.Lock()
	c.corked = true
	c.mu.Unlock()
}

// uncork writes what was collected, in one write, and stops collecting.
func (c *corkConn) uncork() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.corked = false
	if len(c.buf) == 0 {
		return nil
	}
	_, err := c.writeLocked(c.buf)
	if cap(c.buf) > corkMaxKeep {
		c.buf = nil
	} else {
		c.buf = c.buf[:0]
	}
	return err
}

// corkingWriter hands the WebSocket library a corkConn when it hijacks
// the connection.
type corkingWriter struct {
	http.ResponseWriter
	conn *corkConn
}

// Hijack takes over the connection and wraps it. The library writes
// through the returned buffered writer, so that writer must lead to the
// corkConn too.
func (w *corkingWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	nc, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	if err := brw.Writer.Flush(); err != nil {
		nc.Close()
		return nil, nil, err
	}
	w.conn = &corkConn{Conn: nc}
	return w.conn, bufio.NewReadWriter(brw.Reader, bufio.NewWriterSize(w.conn, 4096)), nil
}

// Unwrap lets http.ResponseController reach the server's writer.
func (w *corkingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
