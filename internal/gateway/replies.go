package gateway

import (
	"context"
	"fmt"

	"github.com/coder/websocket"
)

// Once a connection is set up, its responses leave through its event pump,
// like its events: a handler queues the encoded frame and the pump writes
// the queued responses and events together, in one socket write, while
// the socket is corked. A round trip's frames come in bunches — the
// `accepted` res with the run's first events, the final res of `agent`
// with the run's last ones — so this is about half the write system calls
// of writing each response by itself (those were the gateway layer's
// largest cost per round trip).
//
// Responses go out in the order they were queued, each bunch before the
// events queued beside it. Nothing bounds a response's wait for the
// socket but the socket (writeTimeout); a client that sends requests
// without reading the answers is cut off once maxBufferedBytes of them
// wait (as a client that does not read its events is).

// queueReply queues one encoded response for the pump. Before the pump
// runs (the handshake), it writes the frame itself.
func (c *conn) queueReply(b []byte) error {
	if c.kick == nil {
		c.writeMu.Lock()
		defer c.writeMu.Unlock()
		return c.writeLocked(b)
	}
	c.replyMu.Lock()
	if len(c.replies) > 0 && c.replyBytes+int64(len(b)) > c.s.opts.MaxBufferedBytes {
		held := c.replyBytes
		c.replyMu.Unlock()
		c.s.log.Info("gateway client too slow: disconnected", "conn", c.id, "remote", c.remote, "unsentResponseBytes", held)
		c.close(websocket.StatusPolicyViolation, "slow consumer: responses not read")
		return fmt.Errorf("gateway: %d response bytes unsent: %w", held, context.Canceled)
	}
	c.replies = append(c.replies, b)
	c.replyBytes += int64(len(b))
	c.replyMu.Unlock()
	select {
	case c.kick <- struct{}{}:
	default: // the pump is due to look already
	}
	return c.ctx.Err()
}

// takeReplies returns the queued responses and empties the queue.
func (c *conn) takeReplies() [][]byte {
	c.replyMu.Lock()
	defer c.replyMu.Unlock()
	out := c.replies
	c.replies, c.replyBytes = nil, 0
	return out
}

// writeRepliesLocked writes the queued responses (writeMu held, socket
// corked).
func (c *conn) writeRepliesLocked() error {
	for _, b := range c.takeReplies() {
		if err := c.writeLocked(b); err != nil {
			return err
		}
	}
	return nil
}
