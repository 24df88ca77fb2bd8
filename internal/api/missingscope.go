package api

import (
	"errors"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// OperatorName is a single scope's name in OpenClaw's vocabulary
// ("operator.write"), the name every refusal uses: OpenClaw's CLI and
// tools read the scope out of `missing scope: <name>`.
func (s Scope) OperatorName() string { return "operator." + s.String() }

// MissingScopeError is the cause of a refusal for want of a scope. Every
// surface answers it with the same message, OpenClaw's
// `missing scope: operator.<scope>`; the WebSocket gateway also sends it
// as OpenClaw's structured details.
type MissingScopeError struct {
	// Scope is the scope the call needs.
	Scope Scope
}

func (e *MissingScopeError) Error() string { return "needs " + e.Scope.OperatorName() }

// MissingScope is the forbidden error of a call that needs scope need.
func MissingScope(need Scope) error {
	return &domain.Error{Code: domain.CodeForbidden, Message: "missing scope: " + need.OperatorName(), Err: &MissingScopeError{Scope: need}}
}

// AsMissingScope returns the scope a refusal wanted, if err is one.
func AsMissingScope(err error) (Scope, bool) {
	var ms *MissingScopeError
	if errors.As(err, &ms) {
		return ms.Scope, true
	}
	return 0, false
}
