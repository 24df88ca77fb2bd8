package engine

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/policy"
)

// command handles /new, /reset, /stop, /send, /approve and /deny before
// the model sees them.
func (e *Engine) command(ctx context.Context, key, channel, sender, msg string) (api.ChatResult, bool, error) {
	text := strings.TrimSpace(msg)
	if !strings.HasPrefix(text, "/") {
		return api.ChatResult{}, false, nil
	}
	fields := strings.Fields(text)
	name := strings.ToLower(fields[0])
	res := api.ChatResult{SessionKey: key, Command: strings.TrimPrefix(name, "/")}
	switch name {
	case "/new", "/reset":
		if len(fields) > 1 {
			// "/new <text>" resets and then runs <text>: chat does both,
			// after its idempotency check (resetRemainder).
			return api.ChatResult{}, false, nil
		}
		s, err := e.reset(ctx, key)
		if err != nil {
			return api.ChatResult{}, true, err
		}
		res.Reply = fmt.Sprintf("✅ New session started (sessionId %s).", s.SessionID)
		return res, true, nil
	case "/stop":
		if len(fields) > 1 {
			return api.ChatResult{}, false, nil
		}
		n, err := e.StopSession(ctx, key)
		if err != nil {
			return api.ChatResult{}, true, err
		}
		if n == 0 {
			res.Reply = "Nothing to stop."
		} else {
			res.Reply = fmt.Sprintf("⏹ Stopped %d run(s).", n)
		}
		return res, true, nil
	case "/send":
		if !e.isOwner(channel, sender) {
			return api.ChatResult{}, true, domain.Errorf(domain.CodeForbidden, "/send is only available to owners")
		}
		if len(fields) == 1 {
			// OpenClaw answers a bare /send with its usage, as a reply.
			res.Reply = "⚙️ Usage: /send on|off|inherit"
			return res, true, nil
		}
		if len(fields) != 2 {
			return api.ChatResult{}, true, domain.Invalid("usage: /send on|off|inherit")
		}
		v, err := policy.ParseSendPolicyValue(fields[1])
		if err != nil {
			return api.ChatResult{}, true, domain.Invalid("usage: /send on|off|inherit (got %q)", fields[1])
		}
		// inherit clears the override: sessions.patch {sendPolicy: null}.
		set := api.SetNull()
		if v != "" {
			set = api.SetValue(v)
		}
		if _, err := e.patch(ctx, key, api.PatchRequest{SendPolicy: set}); err != nil {
			return api.ChatResult{}, true, err
		}
		word := map[string]string{domain.SendPolicyAllow: "on", domain.SendPolicyDeny: "off", "": "inherit"}[v]
		res.Reply = "⚙️ Send policy set to " + word + "."
		return res, true, nil
	case "/approve", "/deny":
		return e.approvalCommand(ctx, res, channel, sender, fields)
	}
	return api.ChatResult{}, false, nil
}

func (e *Engine) isOwner(channel, sender string) bool {
	if channel == "webchat" && (sender == "" || sender == "webchat") {
		return true
	}
	return sender != "" && contains(e.conf().Session.Owners, sender)
}

// resetRemainder reports whether msg is a reset trigger followed by text
// ("/new <text>", "/reset <text>") and returns the text: OpenClaw starts a
// fresh session id and passes the remainder of the message through
// (OpenClaw's gateway methods, `agent`: "A leading /new or /reset in message
// resets the session first").
func resetRemainder(msg string) (string, bool) {
	text := strings.TrimSpace(msg)
	i := strings.IndexFunc(text, unicode.IsSpace)
	if i < 0 {
		return "", false
	}
	switch strings.ToLower(text[:i]) {
	case "/new", "/reset":
	default:
		return "", false
	}
	rest := strings.TrimSpace(text[i:])
	return rest, rest != ""
}
