package remote

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Errors a call to a remote can end with; Client.Send wraps them with the
// remote's id and what failed, so errors.Is tells them apart.
var (
	// ErrUnreachable: the remote did not answer (connection refused, DNS,
	// reset, a non-JSON answer of a proxy).
	ErrUnreachable = errors.New("unreachable")
	// ErrUnauthorized: the remote answered 401 or 403.
	ErrUnauthorized = errors.New("refused the credentials")
	// ErrBadCard: the agent card is missing, malformed or names no endpoint
	// switchboard can call.
	ErrBadCard = errors.New("bad agent card")
	// ErrTaskFailed: the remote's task ended failed, rejected or canceled,
	// or asks for input switchboard cannot give.
	ErrTaskFailed = errors.New("task failed")
	// ErrProtocol: the remote answered with a JSON-RPC error or a result
	// that is not a task or message.
	ErrProtocol = errors.New("protocol error")
)

// unreachable wraps a transport error; a cancelled or expired ctx stays
// recognizable with errors.Is.
func unreachable(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%w (%w)", ctx.Err(), err)
	}
	return fmt.Errorf("%w: %v", ErrUnreachable, err)
}

// httpStatus turns a non-2xx answer into an error naming what was asked.
// The status is shown by its code and standard text, never the remote's
// own reason phrase or body. A redirect is refused (the guard does not
// follow it: it could carry the token elsewhere).
func httpStatus(resp *http.Response, what string) error {
	status := fmt.Sprintf("%d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return fmt.Errorf("%w: %s answered %s (check a2a.remotes[].token)", ErrUnauthorized, what, status)
	case resp.StatusCode == http.StatusNotFound && what == "agent card":
		return fmt.Errorf("%w: %s answered %s", ErrBadCard, what, status)
	case resp.StatusCode >= 300 && resp.StatusCode <= 399:
		return fmt.Errorf("%w: %s answered a redirect (%s), which is not followed", ErrUnreachable, what, status)
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return fmt.Errorf("%w: %s answered %s", ErrUnreachable, what, status)
	}
	return nil
}

// maxRemoteText bounds the remote's own words carried in an error.
const maxRemoteText = 240

// remoteSays is the remote's error message as an error may carry it:
// never verbatim — control characters dropped, cut at maxRemoteText
// runes, quoted and labelled as the remote's — so a remote cannot pour
// its internals or forged lines into the requester's transcript. A
// switchboard remote's refusals (a loop, a policy) stay readable.
func remoteSays(msg string) string {
	var b strings.Builder
	n := 0
	for _, r := range msg {
		if n == maxRemoteText {
			b.WriteString("…")
			break
		}
		if unicode.IsControl(r) || r == utf8.RuneError {
			r = ' '
		}
		b.WriteRune(r)
		n++
	}
	t := strings.TrimSpace(b.String())
	if t == "" {
		return ""
	}
	return fmt.Sprintf(" (the remote says %q)", t)
}
