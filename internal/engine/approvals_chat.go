package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// approvalCommand is `/approve <id> [always]` and `/deny <id>` in a chat:
// an owner (session.owners, as for /send) decides an approval from the
// channel; the decision names the channel and the sender as resolver.
// handled is false for any other message.
func (e *Engine) approvalCommand(ctx context.Context, key, channel, sender, msg string) (_ api.ChatResult, handled bool, _ error) {
	fields := strings.Fields(strings.TrimSpace(msg))
	if len(fields) == 0 {
		return api.ChatResult{}, false, nil
	}
	name := strings.ToLower(fields[0])
	if name != "/approve" && name != "/deny" {
		return api.ChatResult{}, false, nil
	}
	res := api.ChatResult{SessionKey: key, Command: strings.TrimPrefix(name, "/")}
	if !e.sessions.IsOwner(channel, sender) {
		return api.ChatResult{}, true, domain.Errorf(domain.CodeForbidden, "%s is only available to owners", name)
	}
	status, decision := domain.ApprovalDenied, api.DecisionDeny
	usage := "usage: /deny <approval id>"
	if name == "/approve" {
		status, decision = domain.ApprovalAllowed, api.DecisionAllowOnce
		usage = "usage: /approve <approval id> [always]"
		if len(fields) == 3 && strings.EqualFold(fields[2], "always") {
			decision = api.DecisionAllowAlways
			fields = fields[:2]
		}
	}
	if len(fields) != 2 {
		return api.ChatResult{}, true, domain.Invalid("%s", usage)
	}
	id := fields[1]
	a, applied, err := e.decide(ctx, id, status, decision, "channel:"+channel+"/"+sender)
	if err != nil {
		return api.ChatResult{}, true, err
	}
	if !applied {
		res.Reply = fmt.Sprintf("Approval %s was already %s; nothing changed.", id, a.Status)
		return res, true, nil
	}
	res.Reply = fmt.Sprintf("✅ Approval %s: %s (%s).", id, a.Status, decision)
	return res, true, nil
}
