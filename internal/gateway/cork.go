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
	// pool lends buf for one corked batch (nil: buf is the connection's).
	pool   *bufPool
	mu     sync.Mutex
	corked bool
	buf    []byte
}

// corkMaxKeep is the largest buffer kept between batches: a run's
// events are a few KiB, and thousands of connections each keeping a
// burst's buffer would add up.
const corkMaxKeep = 8 << 10

// corkBatchCap is the size of a new batch buffer: a run's events and the
// replies beside them fit, so a batch does not grow its buffer step by
// step (the pool empties at every collection, so new buffers are common).
const corkBatchCap = 4 << 10

// bufPool lends write buffers to connections for the length of one
// batch, so a connection between batches holds none: ten thousand idle
// connections each keeping the buffer of its largest batch (its hello-ok)
// were tens of megabytes of the gateway's memory.
type bufPool struct{ p sync.Pool }

// get lends an empty buffer.
func (b *bufPool) get() []byte {
	if v, ok := b.p.Get().(*[]byte); ok {
		return (*v)[:0]
	}
	return make([]byte, 0, corkBatchCap)
}

// put takes buf back, unless it grew past corkMaxKeep.
func (b *bufPool) put(buf []byte) {
	if cap(buf) == 0 || cap(buf) > corkMaxKeep {
		return
	}
	buf = buf[:0]
	b.p.Put(&buf)
}

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
	if c.buf == nil && c.pool != nil {
		c.buf = c.pool.get()
	}
	c.mu.Unlock()
}

// uncork writes what was collected, in one write, and stops collecting.
func (c *corkConn) uncork() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.corked = false
	var err error
	if len(c.buf) > 0 {
		_, err = c.writeLocked(c.buf)
	}
	switch {
	case c.pool != nil:
		c.pool.put(c.buf)
		c.buf = nil
	case cap(c.buf) > corkMaxKeep:
		c.buf = nil
	default:
		c.buf = c.buf[:0]
	}
	return err
}

// corkingWriter hands the WebSocket library a corkConn when it hijacks
// the connection.
type corkingWriter struct {
	http.ResponseWriter
	pool *bufPool
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
	w.conn = &corkConn{Conn: nc, pool: w.pool}
	rd := brw.Reader
	if rd.Buffered() == 0 {
		rd = bufio.NewReaderSize(nc, connBufferSize)
	}
	return w.conn, bufio.NewReadWriter(rd, bufio.NewWriterSize(w.conn, connBufferSize)), nil
}

// connBufferSize sizes the read and write buffers the WebSocket library
// keeps for a connection's whole life, so they are small: idle connections
// are what a gateway holds most of, and each keeps both buffers;
// frames larger than a buffer pass through it (bufio reads and writes
// them directly), and the corkConn batches the writes anyway.
const connBufferSize = 1024

// Unwrap lets http.ResponseController reach the server's writer.
func (w *corkingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
