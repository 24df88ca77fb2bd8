package openclawimport

import (
	"fmt"
	"strings"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/sessionkey"
)

// Defaults of Options.
const (
	// DefaultBatchSize is how many sessions share one store Update.
	DefaultBatchSize = 1024
	// batchMessages caps the messages of one Update; a session with more
	// goes in an Update of its own, never split.
	batchMessages = 4096
	// DefaultLockWait is Options.LockWait's default.
	DefaultLockWait = 5 * time.Second
	// maxWarnings bounds Summary.Warnings; later ones are only counted.
	maxWarnings = 50
)

// Options tune Import. The zero value works.
type Options struct {
	// Canonical turns a sessions.json key of agent agentID into a canonical
	// session key (lowercase agent:<agentId>:<rest>). Nil uses a built-in
	// that lowercases and prefixes bare keys with agent:<agentId>:. It is
	// called from several goroutines at once, as Kind is.
	Canonical func(key, agentID string) (string, error)
	// Kind classifies a canonical key (main|group|cron|hook|node|other).
	// Nil uses a built-in with main key "main". It is called from several
	// goroutines at once.
	Kind func(canonicalKey string) string
	// Progress, when set, is called after each committed batch with the
	// number of sessions handled so far and the total.
	Progress func(done, total int)
	// Now stamps rows that carry no updatedAt; nil means time.Now.
	Now func() time.Time
	// BatchSize is the number of sessions per store Update (default
	// DefaultBatchSize).
	BatchSize int
	// Mirror, when set, receives the messages written to the store, as
	// stored, so switchboard's own JSONL mirror matches the store. Append
	// is called on a goroutine of the import's own, in commit order.
	Mirror Mirror

	// LockWait is how long to wait for an OpenClaw agent database that
	// another process holds locked before refusing it (default
	// DefaultLockWait).
	LockWait time.Duration

	// planBudget overrides planBudgetMessages (tests), and then
	// planHeadStart is the head start (none unless set).
	planBudget    int
	planHeadStart int
	// holdChecks (tests) delays the end of the source's integrity checks
	// until it is closed.
	holdChecks chan struct{}
}

// Mirror is the part of transcript.Mirror that Import uses.
type Mirror interface {
	Append(agentID, sessionID string, msgs []domain.Message) error
}

func (o Options) withDefaults() (Options, error) {
	if o.BatchSize < 0 {
		return o, fmt.Errorf("openclawimport: BatchSize is %d, must not be negative", o.BatchSize)
	}
	if o.BatchSize == 0 {
		o.BatchSize = DefaultBatchSize
	}
	if o.Canonical == nil {
		o.Canonical = DefaultCanonical
	}
	if o.Kind == nil {
		o.Kind = DefaultKind
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.LockWait <= 0 {
		o.LockWait = DefaultLockWait
	}
	if o.planBudget == 0 {
		o.planBudget, o.planHeadStart = planBudgetMessages, planHeadStartMessages
	}
	return o, nil
}

// maxKeyLen bounds canonical keys; OpenClaw keys are far shorter.
const maxKeyLen = 512

// DefaultCanonical is the built-in Options.Canonical: it folds key's case
// (sessionkey.Fold: a Signal group id keeps its case) and
// prefixes a bare (legacy) key with agent:<agentID>:. Callers with a
// configured main key pass package sessionkey's resolver instead.
func DefaultCanonical(key, agentID string) (string, error) {
	k := sessionkey.Fold(strings.TrimSpace(key))
	switch {
	case k == "":
		return "", domain.Invalid("session key is empty")
	case len(k) > maxKeyLen:
		return "", domain.Invalid("session key is %d bytes, longer than the limit of %d", len(k), maxKeyLen)
	}
	if strings.HasPrefix(k, "agent:") {
		parts := strings.SplitN(k, ":", 3)
		if len(parts) < 3 || parts[1] == "" || parts[2] == "" {
			return "", domain.Invalid("session key %q: want agent:<agentId>:<rest>", key)
		}
		return k, nil
	}
	agent := strings.ToLower(strings.TrimSpace(agentID))
	if agent == "" {
		return "", domain.Invalid("session key %q: no agent id to prefix", key)
	}
	return "agent:" + agent + ":" + k, nil
}

// DefaultKind is the built-in Options.Kind, following docs/design.md#session-keys-and-resolution with the
// main key "main".
func DefaultKind(key string) string {
	rest := key
	if strings.HasPrefix(key, "agent:") {
		if parts := strings.SplitN(key, ":", 3); len(parts) == 3 {
			rest = parts[2]
		}
	}
	switch {
	case rest == "main":
		return domain.KindMain
	case strings.HasPrefix(rest, "cron:") || strings.Contains(rest, ":cron:"):
		return domain.KindCron
	case strings.HasPrefix(rest, "hook:"):
		return domain.KindHook
	case strings.HasPrefix(rest, "node-") || strings.HasPrefix(rest, "node:"):
		return domain.KindNode
	case groupMarker(rest) >= 0:
		return domain.KindGroup
	}
	return domain.KindOther
}

// groupMarker returns the index of the "group" or "channel" segment of a
// key's rest (<channel>:group:<id>), or -1.
func groupMarker(rest string) int {
	for i, seg := range strings.Split(rest, ":") {
		if seg == "group" || seg == "channel" {
			return i
		}
	}
	return -1
}

// agentOfKey returns the agent id of a canonical key, or "".
func agentOfKey(key string) string {
	parts := strings.SplitN(key, ":", 3)
	if len(parts) == 3 && parts[0] == "agent" {
		return parts[1]
	}
	return ""
}
