package signal

import (
	"context"
	"time"

	"github.com/switchboard-go/switchboard/internal/channels"
)

// typingEvery repeats Signal's typing indicator, which a Signal client
// hides about fifteen seconds after the last one.
const typingEvery = 10 * time.Second

// typing shows the typing indicator in the chat while the turn's run
// runs (signal-cli's sendTyping), and takes it away (stop) when the run
// ends. It runs beside the reply and never holds or fails it.
func (a *Adapter) typing(ctx context.Context, x *acct, sink channels.Sink, to, runID string) {
	params, err := recipient(to)
	if err != nil || runID == "" {
		return
	}
	if x.cfg.Account != "" {
		params["account"] = x.cfg.Account
	}
	call := func(ctx context.Context, stop bool) error {
		p := make(map[string]any, len(params)+1)
		for k, v := range params {
			p[k] = v
		}
		if stop {
			p["stop"] = true
		}
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		err := a.rpc(cctx, x, "sendTyping", p, "typing-"+runID)
		if err != nil && ctx.Err() == nil {
			a.p.Log.Debug("signal typing indicator", "account", x.id, "stop", stop, "err", err)
		}
		return err
	}
	a.p.Typing(ctx, sink, runID, typingEvery,
		func(ctx context.Context) error { return call(ctx, false) },
		func(ctx context.Context) error { return call(ctx, true) })
}
