package gateway

import (
	"bytes"
	"net"
	"sync"
	"testing"
	"time"
)

// countingConn records each write it gets.
type countingConn struct {
	net.Conn
	mu     sync.Mutex
	writes [][]byte
}

func (c *countingConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes = append(c.writes, append([]byte(nil), p...))
	return len(p), nil
}

func (c *countingConn) SetWriteDeadline(time.Time) error { return nil }

// TestCorkConnBatches: corked writes reach the socket as one write, in
// order, at uncork; uncorked writes go straight through.
func TestCorkConnBatches(t *testing.T) {
	under := &countingConn{}
	c := &corkConn{Conn: under}
	if _, err := c.Write([]byte("a")); err != nil {
		t.Fatal(err)
	}
	c.cork()
	for _, p := range []string{"b", "cd", "e"} {
		if n, err := c.Write([]byte(p)); err != nil || n != len(p) {
			t.Fatalf("corked write %q: %d %v", p, n, err)
		}
	}
	if len(under.writes) != 1 {
		t.Fatalf("corked writes reached the socket: %q", under.writes)
	}
	if err := c.uncork(); err != nil {
		t.Fatal(err)
	}
	if err := c.uncork(); err != nil { // nothing collected: no write
		t.Fatal(err)
	}
	if _, err := c.Write([]byte("f")); err != nil {
		t.Fatal(err)
	}
	want := [][]byte{[]byte("a"), []byte("bcde"), []byte("f")}
	if len(under.writes) != len(want) {
		t.Fatalf("writes %q, want %q", under.writes, want)
	}
	for i := range want {
		if !bytes.Equal(under.writes[i], want[i]) {
			t.Fatalf("writes %q, want %q", under.writes, want)
		}
	}
}

// TestCorkConnBorrowsItsBuffer: with a pool, a corked batch borrows its
// buffer and gives it back at uncork, so a connection between batches
// holds none; the batch still reaches the socket whole, and a buffer that
// grew past corkMaxKeep is not kept in the pool.
func TestCorkConnBorrowsItsBuffer(t *testing.T) {
	var pool bufPool
	under := &countingConn{}
	c := &corkConn{Conn: under, pool: &pool}
	for round, size := range []int{10, corkMaxKeep + 1, 20} {
		c.cork()
		if c.buf == nil {
			t.Fatalf("round %d: corked without a buffer", round)
		}
		if _, err := c.Write(bytes.Repeat([]byte("x"), size)); err != nil {
			t.Fatal(err)
		}
		if err := c.uncork(); err != nil {
			t.Fatal(err)
		}
		if c.buf != nil {
			t.Fatalf("round %d: the connection kept its buffer (cap %d) after the batch", round, cap(c.buf))
		}
		if got := len(under.writes[len(under.writes)-1]); got != size {
			t.Fatalf("round %d: socket got %d bytes, want %d", round, got, size)
		}
	}
	pool.put(make([]byte, 0, corkMaxKeep+1))
	if b := pool.get(); cap(b) > corkMaxKeep {
		t.Fatalf("the pool lent a buffer of %d bytes, over corkMaxKeep", cap(b))
	}
}
