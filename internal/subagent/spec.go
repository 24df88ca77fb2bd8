package subagent

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Spawn modes and cleanup values.
const (
	// ModeRun is a one-shot child: it runs its task, announces and ends.
	ModeRun = "run"
	// ModeSession is a thread-bound child that stays for sessions_send.
	ModeSession = "session"
	// CleanupKeep keeps the child session (archived later).
	CleanupKeep = "keep"
	// CleanupDelete deletes the child session after its announce.
	CleanupDelete = "delete"
)

// Spec carries a sub-agent run's lifecycle settings. It is stored in the
// child run's spec (its JSON names are a storage format: do not rename
// them).
type Spec struct {
	// RequesterKey is the session that spawned the child and receives
	// its announce.
	RequesterKey     string `json:"requesterKey"`
	RequesterChannel string `json:"requesterChannel,omitempty"`
	Label            string `json:"label,omitempty"`
	Task             string `json:"task"`
	// Mode is ModeRun or ModeSession; Cleanup CleanupKeep or CleanupDelete.
	Mode    string `json:"mode"`
	Cleanup string `json:"cleanup"`
	// AttachmentsDir is the directory the spawn's attachments were written
	// to, under AttachmentsRoot (removal never leaves the root).
	AttachmentsDir    string `json:"attachmentsDir,omitempty"`
	AttachmentsRoot   string `json:"attachmentsRoot,omitempty"`
	RetainAttachments bool   `json:"retainAttachments,omitempty"`
}

// Payload is the outbox payload of a sub-agent announce.
type Payload struct {
	ChildKey string `json:"childKey"`
	Spawn    Spec   `json:"spawn"`
}

// EncodePayload is the stored form of p.
func EncodePayload(p Payload) (json.RawMessage, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encode sub-agent announce payload: %w", err)
	}
	return b, nil
}

// DecodePayload reads a stored announce payload. A payload that does not
// decode, or names no child or no requester, is an error: an announce is
// never delivered to a zero requester.
func DecodePayload(raw json.RawMessage) (Payload, error) {
	var p Payload
	if err := json.Unmarshal(raw, &p); err != nil {
		return Payload{}, fmt.Errorf("sub-agent announce payload does not decode: %w", err)
	}
	if strings.TrimSpace(p.ChildKey) == "" || strings.TrimSpace(p.Spawn.RequesterKey) == "" {
		return Payload{}, errors.New("sub-agent announce payload names no child or no requester")
	}
	return p, nil
}

// ArchiveAt is when a finished child's session is archived (hidden from
// listings, transcript kept): archiveAfterMinutes after endedMs, for a
// one-shot child that is kept. ok is false when it is never archived
// (archiving off, a thread-bound child, or one deleted after its announce).
func ArchiveAt(s Spec, archiveAfterMinutes int, endedMs int64) (due int64, ok bool) {
	if archiveAfterMinutes <= 0 || s.Mode == ModeSession || s.Cleanup == CleanupDelete {
		return 0, false
	}
	return endedMs + int64(archiveAfterMinutes)*60_000, true
}

// RemoveAttachments reports whether the spawn's attachments are removed
// after the announce: always with cleanup "delete", else unless retained.
func RemoveAttachments(s Spec) bool {
	return s.AttachmentsDir != "" && (s.Cleanup == CleanupDelete || !s.RetainAttachments)
}

// DeleteChild reports whether the child session is deleted after the
// announce.
func DeleteChild(s Spec) bool { return s.Cleanup == CleanupDelete }
