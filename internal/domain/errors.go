package domain

import (
	"errors"
	"fmt"
)

// Sentinel errors, checked with errors.Is.
var (
	ErrNotFound = errors.New("not found")
	ErrConflict = errors.New("conflict")
	ErrClosed   = errors.New("closed")
)

// Error codes of coded errors. They map to gateway error codes, HTTP
// statuses and MCP isError in one place each.
const (
	CodeInvalid     = "invalid"     // bad input: INVALID_REQUEST, 400
	CodeNotFound    = "not_found"   // 404
	CodeForbidden   = "forbidden"   // 403
	CodeConflict    = "conflict"    // 409
	CodeUnavailable = "unavailable" // 503
	CodeTimeout     = "timeout"     // AGENT_TIMEOUT, 504
	CodeInternal    = "internal"    // 500
)

// Error is an error whose Message is safe to show to clients.
type Error struct {
	Code    string
	Message string
	Err     error // optional cause, not shown to clients
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Message + ": " + e.Err.Error()
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns a coded error with a client-safe message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Invalid returns a CodeInvalid error.
func Invalid(format string, args ...any) *Error { return Errorf(CodeInvalid, format, args...) }

// ErrorCode returns the code of err's first coded error, CodeNotFound for
// ErrNotFound, CodeConflict for ErrConflict, and CodeInternal otherwise.
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	switch {
	case errors.Is(err, ErrNotFound):
		return CodeNotFound
	case errors.Is(err, ErrConflict):
		return CodeConflict
	}
	return CodeInternal
}

// ErrorMessage returns a client-safe message for err.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	if errors.Is(err, ErrNotFound) {
		return err.Error()
	}
	return "internal error"
}

// WithCode returns err reported under code: its text and its chain are
// err's, and ErrorCode answers code. An err that already carries a code
// of its own keeps it. It is for errors built without a code (a file
// that cannot be read, a config that does not parse, a server that does
// not answer) that a surface must still name rightly.
func WithCode(code string, err error) error {
	if err == nil || ErrorCode(err) != CodeInternal {
		return err
	}
	return &coded{err: err, code: code}
}

// coded is WithCode's error.
type coded struct {
	err  error
	code string
}

func (c *coded) Error() string { return c.err.Error() }

// Unwrap gives the code as a *Error whose cause is the error itself, so
// errors.Is and errors.As still reach everything err wraps.
func (c *coded) Unwrap() error { return &Error{Code: c.code, Message: c.err.Error(), Err: c.err} }
