package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/limits"
	"github.com/switchboard-go/switchboard/internal/outbox"
)

// deliverHeldSend sends a held message once its edge is resumed: from
// outside a run (the requester's tool call has long returned), so it
// starts no reply-back turns.
func (e *Engine) deliverHeldSend(ctx context.Context, it domain.OutboxItem) error {
	var h limits.HeldSend
	if err := json.Unmarshal(it.Payload, &h); err != nil {
		return fmt.Errorf("%w: held message does not decode: %v", outbox.ErrPermanent, err)
	}
	zero := 0
	res, err := e.send(ctx, Requester{SessionKey: h.From, resolved: h.From, IdempotencyKey: it.IdempotencyKey, scoped: true},
		api.SendRequest{SessionKey: h.To, Message: h.Message, TimeoutSeconds: &zero})
	if err != nil {
		return err
	}
	if res.Status == "error" || res.Status == "forbidden" {
		return fmt.Errorf("%w: held message from %s to %s: %s", outbox.ErrPermanent, h.From, h.To, res.Error)
	}
	return nil
}

// LoopsList lists the paused edges of the message graph (operator only).
func (e *Engine) LoopsList(ctx context.Context, p api.Principal) (_ api.LoopsResult, err error) {
	defer e.audited(ctx, p, api.OpLoopsList, "", &err)
	if _, err := e.enter(p, api.OpLoopsList); err != nil {
		return api.LoopsResult{}, err
	}
	if !e.started {
		// A read-only engine (a CLI command beside no gateway): the held
		// messages in the store say which edges are paused.
		if err := e.guards.Restore(ctx); err != nil {
			return api.LoopsResult{}, err
		}
	}
	return api.LoopsResult{Pauses: e.guards.Pauses()}, nil
}

// LoopResume lifts the pause of an edge and sends the messages it held,
// oldest first (operator only).
func (e *Engine) LoopResume(ctx context.Context, p api.Principal, req api.LoopResumeRequest) (_ api.LoopResumeResult, err error) {
	defer e.audited(ctx, p, api.OpLoopsResume, req.From+" -> "+req.To, &err)
	if _, err := e.enter(p, api.OpLoopsResume); err != nil {
		return api.LoopResumeResult{}, err
	}
	n, err := e.guards.Resume(ctx, strings.TrimSpace(req.From), strings.TrimSpace(req.To))
	return api.LoopResumeResult{Released: n}, err
}

var _ api.Operators = (*Engine)(nil)
