package api

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// Authorize checks that p may call op: the scope the table asks for, and
// operator rights where the operation needs them. Visibility of a target
// session is the engine's to check, with the requester this returns.
func Authorize(p Principal, op Op) error {
	r := RuleFor(op)
	if !p.Scopes.Has(r.Scope) {
		return MissingScope(r.Scope)
	}
	if p.Session != "" && p.As != "" && !sameKey(p.Session, p.As) {
		return domain.Errorf(domain.CodeForbidden, "this credential acts as session %s; requester %s is not allowed", p.Session, p.As)
	}
	if r.Acting == OperatorOnly && !p.IsOperator() {
		return domain.Errorf(domain.CodeForbidden, "%s needs operator rights (this call acts as session %s)", op, p.Requester())
	}
	return nil
}

// sameKey compares two spellings of a key before resolution; the engine
// compares canonical keys afterwards.
func sameKey(a, b string) bool {
	return strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b))
}

// IdempotencyScope is the stored form of a caller's idempotency key: the
// same key from another principal, another requester or for another
// operation is another key. It returns "" when key is "".
func IdempotencyScope(p Principal, requester string, op Op, key string) string {
	if key == "" {
		return ""
	}
	h := sha256.New()
	for _, part := range []string{p.Name, p.Session, requester, string(op), key} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return string(op) + ":" + hex.EncodeToString(h.Sum(nil)[:16])
}

// Fingerprint digests the parameters that define a piece of work, so a
// reused idempotency key with other parameters is told apart from a retry.
func Fingerprint(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}

// ErrIdempotencyConflict is the message of a reused key with other
// parameters (code conflict: HTTP 409, WS/MCP "conflict").
const ErrIdempotencyConflict = "idempotency key reused with different parameters"
