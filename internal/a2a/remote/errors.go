package remote

import (
	"context"
	"errors"
	"fmt"
	"net/http"
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
func httpStatus(resp *http.Response, what string) error {
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return fmt.Errorf("%w: %s answered %s (check a2a.remotes[].token)", ErrUnauthorized, what, resp.Status)
	case resp.StatusCode == http.StatusNotFound && what == "agent card":
		return fmt.Errorf("%w: %s answered %s", ErrBadCard, what, resp.Status)
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return fmt.Errorf("%w: %s answered %s", ErrUnreachable, what, resp.Status)
	}
	return nil
}
