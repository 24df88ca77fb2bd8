package a2a

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/switchboard-go/switchboard/internal/a2a/wire"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// rpcError is a JSON-RPC error with the HTTP status it is answered with
// (200 for protocol errors; 401/403 for credential problems, so HTTP
// clients see an auth failure as one).
type rpcError struct {
	obj    wire.Error
	status int
}

// wireError is the JSON-RPC error object of e.
func (e *rpcError) wireError() *wire.Error { return &e.obj }

func (e *rpcError) Error() string { return e.obj.Error() }

func newError(code int, switchboardCode, format string, args ...any) *rpcError {
	return &rpcError{obj: wire.Error{Code: code, Message: fmt.Sprintf(format, args...),
		Data: map[string]any{"code": switchboardCode}}, status: http.StatusOK}
}

func invalidParams(format string, args ...any) *rpcError {
	return newError(wire.CodeInvalidParams, domain.CodeInvalid, format, args...)
}

func contentTypeError(format string, args ...any) *rpcError {
	return newError(wire.CodeContentTypeNotSupported, domain.CodeInvalid, format, args...)
}

func taskNotFound(id string) *rpcError {
	return newError(wire.CodeTaskNotFound, domain.CodeNotFound, "task not found: %s", clip(id))
}

// toRPCError maps an error of the api.Service onto a JSON-RPC error. The
// switchboard error code travels in data.code, so a client can tell a
// refusal (forbidden) from bad input (invalid) whatever JSON-RPC code
// carries it.
func toRPCError(err error) *rpcError {
	var re *rpcError
	if errors.As(err, &re) {
		return re
	}
	code, msg := domain.ErrorCode(err), domain.ErrorMessage(err)
	if errors.Is(err, context.Canceled) {
		code, msg = domain.CodeUnavailable, "request cancelled"
	}
	e := newError(wire.CodeInternalError, code, "%s", msg)
	switch code {
	case domain.CodeInvalid:
		e.obj.Code = wire.CodeInvalidParams
	case domain.CodeNotFound:
		e.obj.Code = wire.CodeTaskNotFound
	case domain.CodeForbidden:
		// A credential without the right: JSON-RPC has no code for it, so
		// the HTTP status says it (403) and data.code names it.
		e.obj.Code = wire.CodeInvalidRequest
		e.status = http.StatusForbidden
	case domain.CodeConflict:
		e.obj.Code = wire.CodeInvalidParams
	}
	return e
}

// WriteRefusal answers a request refused before it reached the A2A handler
// (the gateway's browser policy: a foreign Origin, a wrong Content-Type) as
// a JSON-RPC error (InvalidRequest, data.code = code) with the HTTP status,
// so A2A clients read the reason instead of failing to parse the body.
func WriteRefusal(w http.ResponseWriter, status int, code, msg string) {
	e := newError(wire.CodeInvalidRequest, code, "%s", msg)
	e.status = status
	writeRPC(w, nil, nil, e)
}

// IsEndpoint reports whether path is an agent's JSON-RPC endpoint (or
// below it) rather than a card.
func IsEndpoint(path string) bool {
	return strings.HasPrefix(path, AgentsPrefix) && !strings.HasSuffix(path, "/agent-card.json")
}
