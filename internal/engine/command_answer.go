package engine

import (
	"context"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/delivery"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// commandAnswered queues a chat command's answer to the chat the command
// came from, when the chat asked for its replies to be delivered (a
// channel message does). It bypasses the send policy on purpose: the
// policy gates what the agent says, and `/send off` must still be
// confirmed in the chat it just muted. A chat with no deliverable target
// has the answer in its result only. A failure to queue is logged, not
// returned: the command has taken effect, and a redelivered message would
// run it again.
func (e *Engine) commandAnswered(ctx context.Context, key, channel string, req api.ChatRequest, res api.ChatResult) {
	if !req.Deliver || strings.TrimSpace(res.Reply) == "" {
		return
	}
	if res.SessionKey != "" {
		key = res.SessionKey
	}
	req.BestEffortDeliver = true
	t, err := e.chatDelivery(ctx, key, channel, req)
	if err != nil || t == nil {
		if err != nil {
			e.log.Warn("command answer has no target", "session", key, "command", res.Command, "err", err)
		}
		return
	}
	idem := req.IdempotencyKey
	if idem == "" {
		idem = e.newID()
	}
	it := delivery.CommandItem(key, *t, idem, res.Reply, e.nowMs())
	if err := e.store.Update(ctx, func(tx domain.Tx) error {
		_, _, err := tx.EnqueueOutbox(it)
		return err
	}); err != nil {
		e.log.Warn("command answer not queued", "session", key, "command", res.Command, "err", err)
		return
	}
	e.poke()
}
