package gateway

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
)

const (
	// refuseTimeout bounds how long a refused connection is kept to
	// deliver its 503 (and read what the client sent, so closing does not
	// reset the connection before the answer is read).
	refuseTimeout = 2 * time.Second
	// maxRefusing bounds connections being refused at once; past it more
	// are closed without an answer.
	maxRefusing = 64
	// refuseDrain bounds what is read from a refused connection.
	refuseDrain = 64 << 10
)

// capListener enforces gateway.limits.maxConnections and
// maxConnectionsPerAddress. A connection over a cap is answered
// `503 too many connections` and closed, so clients see why instead of
// hanging in the accept queue. Every accepted connection is counted until
// it is closed (hijacked WebSocket connections included).
type capListener struct {
	net.Listener
	max, perAddr int
	log          *slog.Logger

	mu     sync.Mutex
	open   int
	byAddr map[string]int

	refusing chan struct{} // semaphore of refusal goroutines
	wg       sync.WaitGroup
	refused  atomic.Int64
	lastLog  atomic.Int64 // unix nanos of the last refusal log line
}

func newCapListener(ln net.Listener, lim serverLimits, log *slog.Logger) *capListener {
	return &capListener{Listener: ln, max: lim.maxConns, perAddr: lim.maxConnsPerAddr, log: log,
		byAddr: map[string]int{}, refusing: make(chan struct{}, maxRefusing)}
}

// Accept returns the next connection within the caps; connections over a
// cap are refused in the background.
func (l *capListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		addr := remoteIP(c.RemoteAddr())
		reason := l.admit(addr)
		if reason == "" {
			return &capConn{Conn: c, l: l, addr: addr}, nil
		}
		l.refuse(c, reason)
	}
}

// Close closes the listener and waits for refusals in progress.
func (l *capListener) Close() error {
	err := l.Listener.Close()
	l.wg.Wait()
	return err
}

// admit counts a connection from addr, or says why it is over a cap.
func (l *capListener) admit(addr string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open >= l.max {
		return fmt.Sprintf("too many connections (gateway.limits.maxConnections is %d)", l.max)
	}
	if l.perAddr > 0 && l.byAddr[addr] >= l.perAddr {
		return fmt.Sprintf("too many connections from %s (gateway.limits.maxConnectionsPerAddress is %d)", addr, l.perAddr)
	}
	l.open++
	l.byAddr[addr]++
	return ""
}

func (l *capListener) release(addr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.open--
	if l.byAddr[addr]--; l.byAddr[addr] <= 0 {
		delete(l.byAddr, addr)
	}
}

// refuse answers c with a 503 and closes it, without blocking Accept.
func (l *capListener) refuse(c net.Conn, reason string) {
	n := l.refused.Add(1)
	id := domain.NewID()
	if now, last := time.Now().UnixNano(), l.lastLog.Load(); now-last >= int64(time.Second) && l.lastLog.CompareAndSwap(last, now) {
		l.log.Warn("connection refused", "status", 503, "requestId", id, "remote", c.RemoteAddr().String(), "err", reason, "refusedTotal", n)
	}
	select {
	case l.refusing <- struct{}{}:
	default:
		_ = c.Close()
		return
	}
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		defer func() { <-l.refusing }()
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(refuseTimeout))
		// Read the request head first: an HTTP client treats an answer
		// that comes before its request as a broken connection.
		readHead(c)
		_, _ = c.Write(refusal(id, reason))
		if cw, ok := c.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(c, refuseDrain))
	}()
}

// readHead reads up to the end of an HTTP request head (a blank line),
// refuseDrain bytes, or the connection's deadline.
func readHead(c net.Conn) {
	br := bufio.NewReaderSize(io.LimitReader(c, refuseDrain), 4096)
	for {
		line, err := br.ReadSlice('\n')
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return
		}
		if err == nil && len(bytes.TrimRight(line, "\r\n")) == 0 {
			return
		}
	}
}

// refusal is the raw HTTP/1.1 answer to a connection over a cap.
func refusal(id, reason string) []byte {
	body, _ := json.Marshal(errorBody(domain.CodeUnavailable, reason, id))
	body = append(body, '\n')
	return fmt.Appendf(nil, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"+
		"Retry-After: 1\r\n%s: %s\r\nConnection: close\r\n\r\n%s", len(body), HeaderRequestID, id, body)
}

// remoteIP is the IP of a remote address (the address itself when it has
// no port).
func remoteIP(a net.Addr) string {
	if a == nil {
		return ""
	}
	s := a.String()
	if host, _, err := net.SplitHostPort(s); err == nil {
		return host
	}
	return s
}

// capConn releases its slot once when closed.
type capConn struct {
	net.Conn
	l    *capListener
	addr string
	once sync.Once
}

func (c *capConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.release(c.addr) })
	return err
}

// CloseWrite half-closes a TCP connection (http.Server uses it when it
// closes a connection after an answer).
func (c *capConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
