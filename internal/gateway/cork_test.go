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
