package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/policy"
)

// command handles /new, /reset, /stop and /send before the model sees them.
func (e *Engine) command(ctx context.Context, key, channel, sender, msg string) (ChatResult, bool, error) {
	text := strings.TrimSpace(msg)
	if !strings.HasPrefix(text, "/") {
		return ChatResult{}, false, nil
	}
	fields := strings.Fields(text)
	name := strings.ToLower(fields[0])
	res := ChatResult{SessionKey: key, Command: strings.TrimPrefix(name, "/")}
	switch name {
	case "/new", "/reset":
		if len(fields) > 1 {
			return ChatResult{}, false, nil // "/new topic…" is an ordinary message
		}
		s, err := e.reset(ctx, key)
		if err != nil {
			return ChatResult{}, true, err
		}
		res.Reply = fmt.Sprintf("✅ New session started (sessionId %s).", s.SessionID)
		return res, true, nil
	case "/stop":
		if len(fields) > 1 {
			return ChatResult{}, false, nil
		}
		n, err := e.StopSession(ctx, key)
		if err != nil {
			return ChatResult{}, true, err
		}
		if n == 0 {
			res.Reply = "Nothing to stop."
		} else {
			res.Reply = fmt.Sprintf("⏹ Stopped %d run(s).", n)
		}
		return res, true, nil
	case "/send":
		if !e.isOwner(channel, sender) {
			return ChatResult{}, true, domain.Errorf(domain.CodeForbidden, "/send is only available to owners")
		}
		if len(fields) == 1 {
			// OpenClaw answers a bare /send with its usage, as a reply.
			res.Reply = "⚙️ Usage: /send on|off|inherit"
			return res, true, nil
		}
		if len(fields) != 2 {
			return ChatResult{}, true, domain.Invalid("usage: /send on|off|inherit")
		}
		v, err := policy.ParseSendPolicyValue(fields[1])
		if err != nil {
			return ChatResult{}, true, domain.Invalid("usage: /send on|off|inherit (got %q)", fields[1])
		}
		if _, err := e.patch(ctx, key, PatchParams{SendPolicy: &v}); err != nil {
			return ChatResult{}, true, err
		}
		word := map[string]string{domain.SendPolicyAllow: "on", domain.SendPolicyDeny: "off", "": "inherit"}[v]
		res.Reply = "⚙️ Send policy set to " + word + "."
		return res, true, nil
	}
	return ChatResult{}, false, nil
}

func (e *Engine) isOwner(channel, sender string) bool {
	if channel == "webchat" && (sender == "" || sender == "webchat") {
		return true
	}
	return sender != "" && contains(e.conf().Session.Owners, sender)
}
