package bluebubbles

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/switchboard-go/switchboard/internal/channels"
)

// typingEvery repeats the typing indicator: Messages hides a typing
// bubble that is not renewed after a while.
const typingEvery = 10 * time.Second

// typing shows the typing indicator in the chat while the turn's run
// runs (POST /api/v1/chat/<guid>/typing) and clears it (DELETE) when
// the run ends. BlueBubbles serves it only with its Private API on; a
// refusal ends the typing and never touches the reply.
func (a *Adapter) typing(ctx context.Context, x *acct, sink channels.Sink, to, runID string) {
	guid, err := chatGUID(to)
	if err != nil || runID == "" || ctx.Err() != nil {
		return
	}
	path := "/api/v1/chat/" + url.PathEscape(guid) + "/typing"
	call := func(ctx context.Context, method string) error {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		err := a.rest(cctx, x, method, path, nil)
		if err != nil && ctx.Err() == nil {
			a.p.Log.Debug("bluebubbles typing indicator", "account", x.id, "method", method, "err", err)
		}
		return err
	}
	a.p.Typing(ctx, sink, runID, typingEvery,
		func(ctx context.Context) error { return call(ctx, http.MethodPost) },
		func(ctx context.Context) error { return call(ctx, http.MethodDelete) })
}
