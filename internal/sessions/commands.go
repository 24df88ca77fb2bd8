package sessions

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/policy"
)

// Command handles /new, /reset, /stop and /send before the model sees
// them (the engine handles /approve and /deny).
func (b *Book) Command(ctx context.Context, key, channel, sender, msg string) (api.ChatResult, bool, error) {
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
			// after its idempotency check (ResetRemainder).
			return api.ChatResult{}, false, nil
		}
		s, err := b.Reset(ctx, key)
		if err != nil {
			return api.ChatResult{}, true, err
		}
		res.Reply = fmt.Sprintf("✅ New session started (sessionId %s).", s.SessionID)
		return res, true, nil
	case "/stop":
		if len(fields) > 1 {
			return api.ChatResult{}, false, nil
		}
		n, err := b.stop(ctx, key)
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
		if !b.IsOwner(channel, sender) {
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
		if _, err := b.Patch(ctx, key, api.PatchRequest{SendPolicy: set}); err != nil {
			return api.ChatResult{}, true, err
		}
		word := map[string]string{domain.SendPolicyAllow: "on", domain.SendPolicyDeny: "off", "": "inherit"}[v]
		res.Reply = "⚙️ Send policy set to " + word + "."
		return res, true, nil
	}
	return api.ChatResult{}, false, nil
}

// IsOwner reports whether sender on channel may use the owner-only chat
// commands: the local webchat user, or an id listed in session.owners.
func (b *Book) IsOwner(channel, sender string) bool {
	if channel == "webchat" && (sender == "" || sender == "webchat") {
		return true
	}
	return sender != "" && contains(b.conf().Session.Owners, sender)
}

// ResetRemainder reports whether msg is a reset trigger followed by text
// ("/new <text>", "/reset <text>") and returns the text: OpenClaw starts a
// fresh session id and passes the remainder of the message through
// (OpenClaw's gateway methods, `agent`: "A leading /new or /reset in message
// resets the session first").
func ResetRemainder(msg string) (string, bool) {
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
