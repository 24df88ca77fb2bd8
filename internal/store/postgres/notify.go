package postgres

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/switchboard-go/switchboard/internal/replica"
)

// Signals travel on one NOTIFY channel as JSON arrays of replica.Signal
// (ids only: the receivers read the rows). NOTIFY is transactional and
// delivered in commit order per sending session, to every listener,
// including the sender (which drops its own).

// notifyChannel is the LISTEN/NOTIFY channel of switchboard's replicas.
const notifyChannel = "switchboard_signals"

// maxPayload keeps a NOTIFY payload under PostgreSQL's 8000-byte limit.
const maxPayload = 7000

// Signal queues s for the other replicas; it never blocks (a full queue
// drops the signal, logged: peers still see the rows, later).
func (c *Cluster) Signal(s replica.Signal) {
	s.Replica = c.replica
	select {
	case c.out <- s:
	default:
		c.log.Warn("replicas: signal queue full; dropping a signal", "kind", s.Kind, "session", s.SessionKey)
	}
}

// Signals delivers the other replicas' signals, in the order they sent them.
func (c *Cluster) Signals() <-chan replica.Signal { return c.in }

// send batches queued signals into NOTIFYs until ctx ends: whatever is
// queued when a NOTIFY is due goes in it, so a lone signal leaves at once
// and a burst costs few round trips.
func (c *Cluster) send(ctx context.Context) {
	var batch []replica.Signal
	for {
		select {
		case <-ctx.Done():
			c.flush()
			return
		case s := <-c.out:
			batch = append(batch[:0], s)
		}
	drain:
		for len(batch) < 256 {
			select {
			case s := <-c.out:
				batch = append(batch, s)
			default:
				break drain
			}
		}
		for _, payload := range encodeSignals(batch) {
			if _, err := c.s.pool.Exec(ctx, `SELECT pg_notify($1, $2)`, notifyChannel, payload); err != nil {
				if ctx.Err() != nil {
					return
				}
				c.log.Warn("replicas: sending signals failed", "count", len(batch), "err", err)
			}
		}
	}
}

// flush sends the signals still queued when the cluster closes (a clean
// stop's last words: the runs it queued again), within a short deadline.
func (c *Cluster) flush() {
	var batch []replica.Signal
	for {
		select {
		case s := <-c.out:
			batch = append(batch, s)
			continue
		default:
		}
		break
	}
	if len(batch) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for _, payload := range encodeSignals(batch) {
		if _, err := c.s.pool.Exec(ctx, `SELECT pg_notify($1, $2)`, notifyChannel, payload); err != nil {
			c.log.Warn("replicas: sending the last signals failed", "count", len(batch), "err", err)
			return
		}
	}
}

// encodeSignals packs signals into JSON array payloads under maxPayload
// (a signal too large alone is dropped).
func encodeSignals(batch []replica.Signal) []string {
	var out []string
	buf := []byte{'['}
	for _, s := range batch {
		b, err := json.Marshal(s)
		if err != nil || len(b)+2 > maxPayload {
			continue
		}
		if len(buf)+len(b)+1 > maxPayload {
			out = append(out, string(append(buf, ']')))
			buf = []byte{'['}
		}
		if len(buf) > 1 {
			buf = append(buf, ',')
		}
		buf = append(buf, b...)
	}
	if len(buf) > 1 {
		out = append(out, string(append(buf, ']')))
	}
	return out
}

// listen holds a connection that LISTENs to the channel and hands the
// other replicas' signals to c.in, reconnecting after a failure. The
// first connection's outcome is sent on ready.
func (c *Cluster) listen(ctx context.Context, ready chan<- error) {
	first := true
	delay := 100 * time.Millisecond
	for ctx.Err() == nil {
		conn, err := pgx.ConnectConfig(ctx, c.s.pool.Config().ConnConfig.Copy())
		if err == nil {
			_, err = conn.Exec(ctx, `LISTEN `+notifyChannel)
		}
		if first {
			ready <- err
			if err != nil {
				if conn != nil {
					conn.Close(context.Background())
				}
				return
			}
			first = false
		}
		if err == nil {
			delay = 100 * time.Millisecond
			err = c.receive(ctx, conn)
		}
		if conn != nil {
			conn.Close(context.Background())
		}
		if ctx.Err() != nil {
			return
		}
		c.log.Warn("replicas: signal listener lost its connection; reconnecting", "err", err, "in", delay)
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		delay = min(2*delay, 5*time.Second)
	}
}

// receive hands notifications to c.in until the connection fails.
func (c *Cluster) receive(ctx context.Context, conn *pgx.Conn) error {
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		var batch []replica.Signal
		if err := json.Unmarshal([]byte(n.Payload), &batch); err != nil {
			c.log.Warn("replicas: undecodable signal", "err", err)
			continue
		}
		for _, s := range batch {
			if s.Replica == c.replica {
				continue
			}
			// A full queue holds the listener back rather than dropping
			// a signal (a run's end, a waiter's wake-up): the server keeps
			// the notifications meanwhile.
			select {
			case c.in <- s:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
}
