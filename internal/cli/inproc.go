package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/switchboard-go/switchboard/internal/app"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/engine"
	"github.com/switchboard-go/switchboard/internal/policy"
)

// inproc is the in-process backend: the engine of an opened state dir.
type inproc struct {
	env *env
	app *app.App
	eng *engine.Engine
	// readOnly: the state dir belongs to another process; nothing was
	// started here, so there is nothing to settle.
	readOnly bool
}

var _ backend = (*inproc)(nil)

func (b *inproc) Remote() bool { return false }

// requester is the engine requester for as ("" = operator). A malformed
// --as key is refused here, with the engine's message.
func (b *inproc) requester(ctx context.Context, as string) (engine.Requester, error) {
	if as == "" {
		return engine.Requester{Operator: true}, nil
	}
	key, err := b.eng.CanonicalKey(ctx, as)
	if err != nil {
		return engine.Requester{}, fmt.Errorf("--as: %w", err)
	}
	return engine.Requester{SessionKey: key}, nil
}

func (b *inproc) ListSessions(ctx context.Context, as string, p engine.ListParams) (engine.ListResult, error) {
	req, err := b.requester(ctx, as)
	if err != nil {
		return engine.ListResult{}, err
	}
	return b.eng.ListSessionsR(ctx, req, p)
}

func (b *inproc) History(ctx context.Context, as string, p engine.HistoryParams) (engine.HistoryResult, error) {
	req, err := b.requester(ctx, as)
	if err != nil {
		return engine.HistoryResult{}, err
	}
	return b.eng.HistoryR(ctx, req, p)
}

func (b *inproc) Patch(ctx context.Context, ref string, p engine.PatchParams) (domain.Session, error) {
	return b.eng.PatchR(ctx, ref, p)
}

func (b *inproc) Reset(ctx context.Context, ref string) (domain.Session, error) {
	return b.eng.ResetR(ctx, ref)
}

func (b *inproc) Delete(ctx context.Context, ref string) (string, error) {
	key, err := b.eng.CanonicalKey(ctx, ref)
	if err != nil {
		return "", err
	}
	return key, b.eng.DeleteR(ctx, key)
}

func (b *inproc) Chat(ctx context.Context, req engine.ChatRequest) (engine.ChatResult, error) {
	return b.eng.ChatR(ctx, req)
}

func (b *inproc) Send(ctx context.Context, as string, p engine.SendParams) (engine.SendResult, error) {
	req, err := b.requester(ctx, as)
	if err != nil {
		return engine.SendResult{}, err
	}
	return b.eng.SendR(ctx, req, p)
}

func (b *inproc) Spawn(ctx context.Context, as string, p engine.SpawnParams) (engine.SpawnResult, error) {
	req, err := b.requester(ctx, as)
	if err != nil {
		return engine.SpawnResult{}, err
	}
	return b.eng.SpawnR(ctx, req, p)
}

func (b *inproc) AgentsList(ctx context.Context, as string) (policy.AgentsListResult, error) {
	req, err := b.requester(ctx, as)
	if err != nil {
		return policy.AgentsListResult{}, err
	}
	return b.eng.AgentsListR(req), nil
}

func (b *inproc) GetRun(ctx context.Context, id string) (domain.Run, error) {
	return b.eng.GetRunR(ctx, id)
}

func (b *inproc) Wait(ctx context.Context, id string, timeout time.Duration) (domain.Run, error) {
	return b.eng.WaitR(ctx, id, timeout)
}

func (b *inproc) CancelRun(ctx context.Context, id string) (domain.Run, error) {
	return b.eng.CancelRunR(ctx, id)
}

func (b *inproc) ListRuns(ctx context.Context, q domain.RunQuery) ([]domain.Run, error) {
	return b.eng.ListRunsR(ctx, q)
}

func (b *inproc) Outbox(ctx context.Context, q domain.OutboxQuery) ([]domain.OutboxItem, error) {
	return b.eng.OutboxR(ctx, q)
}

// closeTimeout bounds the engine's shutdown after the work settled (or
// after an interrupt).
const closeTimeout = 10 * time.Second

// Close waits for the work in hand to settle (unless --detach), then stops
// the engine and releases the state dir. An interrupt while settling stops
// at once: runs in flight are recorded as aborted, queued work stays for
// the next start.
func (b *inproc) Close(ctx context.Context) error {
	var settleErr error
	if !b.env.detach && !b.readOnly {
		settleErr = settle(ctx, b.eng, b.env.progress())
		if errors.Is(settleErr, context.Canceled) {
			settleErr = errors.New("interrupted: runs in flight are recorded as aborted; queued work resumes at the next start")
		}
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
	defer cancel()
	return errors.Join(settleErr, b.app.Close(cctx))
}
