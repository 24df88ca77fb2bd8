package whatsapp

import (
	"context"
	"net/http"
	"time"
)

// markRead marks an inbound message read, with the typing indicator when
// the message started a run. The Cloud API shows the indicator until the
// reply arrives or for 25 seconds, and only through the mark-read call,
// so it is sent once per message. It runs beside the webhook's answer and
// the reply, and a failure only logs. sendReadReceipts: false turns both
// off; unset, a message that starts no run is not marked read.
func (a *Adapter) markRead(ctx context.Context, x *acct, messageID string, typing bool) {
	rr := x.cfg.SendReadReceipts
	if messageID == "" || ctx.Err() != nil || (rr != nil && !*rr) || (rr == nil && !typing) {
		return
	}
	body := map[string]any{"messaging_product": "whatsapp", "status": "read", "message_id": messageID}
	if typing {
		body["typing_indicator"] = map[string]any{"type": "text"}
	}
	a.p.Go(func() {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if err := a.graph(cctx, x, http.MethodPost, "/"+x.cfg.PhoneNumberID+"/messages", body, nil); err != nil && ctx.Err() == nil {
			a.p.Log.Debug("whatsapp read receipt not sent", "account", x.id, "typing", typing, "err", err)
		}
	})
}
