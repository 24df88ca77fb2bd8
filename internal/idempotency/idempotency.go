// Package idempotency is what an idempotency key means for the work it
// names: the parameters that define a chat turn, a sessions_send and a
// sessions_spawn (fingerprinted with api.Fingerprint), the run a scoped
// key already names, and the store gate that orders duplicates.
package idempotency

import (
	"context"
	"errors"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/delivery"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/runspec"
)

// A caller's key is scoped to (principal, requester, operation) by the
// engine's gate before it reaches the store, so another
// caller's key never finds this caller's run. Within one scope, the key
// names one piece of work: a retry with the same parameters gets the
// first run, and the same key with other parameters is a conflict.

// SendWork are the parameters that define a sessions_send (not its timeout).
type SendWork struct {
	Target  string `json:"target"`
	Message string `json:"message"`
	// Mode is set for steer only (followup is the default, and notify
	// takes no idempotency key), so older fingerprints stay valid.
	Mode string `json:"mode,omitempty"`
}

// SpawnWork are the parameters that define a sessions_spawn (not its
// timeout).
type SpawnWork struct {
	Task        string `json:"task"`
	Label       string `json:"label,omitempty"`
	AgentID     string `json:"agentId,omitempty"`
	Model       string `json:"model,omitempty"`
	Thinking    string `json:"thinking,omitempty"`
	Thread      bool   `json:"thread,omitempty"`
	Mode        string `json:"mode,omitempty"`
	Cleanup     string `json:"cleanup,omitempty"`
	Sandbox     string `json:"sandbox,omitempty"`
	Attachments string `json:"attachments,omitempty"`
	MountPath   string `json:"mountPath,omitempty"`
	Context     string `json:"context,omitempty"`
}

// ChatWork are the parameters that define a chat turn (not its timeout).
type ChatWork struct {
	SessionKey  string `json:"sessionKey"`
	Message     string `json:"message"`
	Channel     string `json:"channel,omitempty"`
	Model       string `json:"model,omitempty"`
	Thinking    string `json:"thinking,omitempty"`
	ExtraSystem string `json:"extraSystem,omitempty"`
	// Deliver is the reply's delivery target (none: omitted, so keys
	// written before it keep their fingerprint).
	Deliver *delivery.Target `json:"deliver,omitempty"`
	// Files is the digest of the message's attachments (attachments.Digest).
	Files string `json:"files,omitempty"`
}

// ErrConflict is the error of a reused key with other parameters.
func ErrConflict() error {
	return domain.Errorf(domain.CodeConflict, "%s", api.ErrIdempotencyConflict)
}

// Prior returns the run a scoped idempotency key already names (found
// false when none does). A run recorded with other parameters than
// fingerprint is a conflict.
func Prior(ctx context.Context, store domain.Store, idem, fingerprint string) (domain.Run, bool, error) {
	if idem == "" {
		return domain.Run{}, false, nil
	}
	run, err := store.GetRunByIdempotencyKey(ctx, idem)
	if errors.Is(err, domain.ErrNotFound) {
		return domain.Run{}, false, nil
	}
	if err != nil {
		return domain.Run{}, false, err
	}
	if err := SameWork(run, fingerprint); err != nil {
		return domain.Run{}, false, err
	}
	return run, true, nil
}

// SameWork checks that run, found under an idempotency key, was created
// with the parameters fingerprint digests. A run recorded before
// fingerprints existed is taken as the same work.
func SameWork(run domain.Run, fingerprint string) error {
	spec, err := runspec.Decode(run)
	if err != nil {
		return err
	}
	if spec.Fingerprint != "" && spec.Fingerprint != fingerprint {
		return ErrConflict()
	}
	return nil
}

// Lock orders the calls that carry one idempotency key from the
// lookup of the key to the commit of its run. The store dedupes the run
// itself (CreateRun), but a chat turn "/reset <text>" resets the session
// between the lookup and the commit: a duplicate that looked before the
// first call committed reset the session again, stopping the run the
// first call had just started, and answered with that cancelled run. With
// the gate the duplicate looks after the commit and finds the run. Calls
// with different keys do not wait for each other. The gate is the store's
// (domain.Store.Gate), so duplicates sent to two replicas on PostgreSQL
// are ordered too. Only a chat that resets takes it (the engine's chat): any other
// duplicate is deduped by the store alone. An empty key holds nothing.
func Lock(ctx context.Context, store domain.Store, idem string) (unlock func(), err error) {
	if idem == "" {
		return func() {}, nil
	}
	return store.Gate(ctx, "idem\x00"+idem)
}
