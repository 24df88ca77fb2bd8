package outbox

import (
	"context"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/tracing"
)

// runReader is the part of a store that finds the run an item delivers
// for; a store with it gives deliveries the trace of their run.
type runReader interface {
	GetRun(ctx context.Context, id string) (domain.Run, error)
}

// deliverTraced is deliver inside a delivery span, a child of the trace
// context kept by the item's run.
func (w *Worker) deliverTraced(ctx context.Context, it domain.OutboxItem) error {
	if !tracing.Enabled() {
		return w.deliver(ctx, it)
	}
	parent := ""
	if rr, ok := w.cfg.Store.(runReader); ok && it.RunID != "" {
		if r, err := rr.GetRun(ctx, it.RunID); err == nil {
			parent = tracing.FromSpec(r.Spec)
		}
	}
	ctx, span := tracing.StartDelivery(ctx, parent, string(it.Kind), it.Channel, it.SessionKey)
	span.SetInt("switchboard.outbox.attempt", int64(it.Attempts+1))
	err := w.deliver(ctx, it)
	span.End(err)
	return err
}
