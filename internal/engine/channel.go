package engine

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/switchboard-go/switchboard/internal/delivery"
	"github.com/switchboard-go/switchboard/internal/sessions"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/sessionkey"
)

// builtinChannels are the channel names a chat message may arrive on
// without a `channels.<name>` entry in config: webchat (the default),
// internal, the A2A surface's channel, and the messaging channels of
// OpenClaw's registry, whose names clients and imported stores carry.
var builtinChannels = []string{
	"webchat", sessionkey.ChannelInternal, sessions.RemoteChannel,
	"whatsapp", "telegram", "discord", "signal", "imessage", "slack", "irc", "googlechat",
}

// inboundChannel resolves the channel of a chat request: "" is webchat,
// "last" the session's last channel (webchat when it has none), and any
// other name must be a built-in channel or one configured under
// `channels`. An unknown name is refused with OpenClaw's `unknown channel:
// <c>` (OpenClaw's gateway methods, the `agent` method's run-request validation),
// marked api.ErrRunRequest so the `agent` method can prefix its params
// error.
func (e *Engine) inboundChannel(ctx context.Context, key, requested string) (string, error) {
	c := strings.ToLower(strings.TrimSpace(requested))
	switch {
	case c == "":
		return "webchat", nil
	case c == delivery.Last:
		if s, err := e.store.GetSession(ctx, key); err == nil && s.LastChannel != "" {
			return s.LastChannel, nil
		}
		return "webchat", nil
	case slices.Contains(builtinChannels, c):
		return c, nil
	}
	if e.conf().Channels.Has(c) {
		return c, nil
	}
	return "", runRequestError(domain.Invalid("unknown channel: %s", clipChannel(requested)))
}

// runRequestError marks a refusal of what a chat request names (its
// session, agent or channel) as api.ErrRunRequest, keeping its code and
// message (Error() included, so the CLI prints it unchanged); other errors
// pass as they are.
func runRequestError(err error) error {
	var de *domain.Error
	if errors.As(err, &de) && de.Code == domain.CodeInvalid {
		return &runRequestErr{err: err}
	}
	return err
}

// runRequestErr is an invalid-request error that also matches
// api.ErrRunRequest.
type runRequestErr struct{ err error }

func (r *runRequestErr) Error() string        { return r.err.Error() }
func (r *runRequestErr) Unwrap() error        { return r.err }
func (r *runRequestErr) Is(target error) bool { return target == api.ErrRunRequest }

// clipChannel keeps an echoed channel name short.
func clipChannel(s string) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > 64 {
		return string(r[:64]) + "…"
	}
	return s
}
