package a2a

import (
	"strings"
	"time"

	"github.com/switchboard-go/switchboard/internal/a2a/wire"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// StateOf maps a run status to the task state A2A clients see: the one
// table docs/a2a.md shows. INPUT_REQUIRED, AUTH_REQUIRED and REJECTED are
// never produced: a run either ends or fails, a follow-up message in the
// same context starts a new task, and a refused request is a JSON-RPC
// error before any task exists.
func StateOf(status domain.RunStatus) wire.TaskState {
	switch status {
	case domain.RunQueued:
		return wire.TaskStateSubmitted
	case domain.RunRunning:
		return wire.TaskStateWorking
	case domain.RunOK:
		return wire.TaskStateCompleted
	case domain.RunError, domain.RunTimeout:
		return wire.TaskStateFailed
	case domain.RunCancelled:
		return wire.TaskStateCanceled
	}
	return wire.TaskStateUnspecified
}

// sessionMarker is the part of a session key between the agent id and the
// A2A contextId: agent:<id>:a2a:<contextId>.
const sessionMarker = ":a2a:"

// upperMark precedes, in a session key, the lower-case form of an
// upper-case letter of a contextId. Session keys are canonical in lower
// case, while contextIds are case-sensitive: "ABC" and "abc" are two
// conversations. A contextId holds only letters, digits and . _ -
// (checkContextID), so the mark never stands for itself, and '~' needs no
// escaping in a URL path or a shell word.
const upperMark = '~'

// SessionKey is the session an A2A context of agent id lives in. A
// contextId without upper-case letters is the key's last part as it is
// (keys made before the mark existed stay the same); each upper-case
// letter of another becomes upperMark and the letter in lower case.
func SessionKey(agentID, contextID string) string {
	return "agent:" + strings.ToLower(agentID) + sessionMarker + contextSegment(contextID)
}

// contextSegment is contextID as the last part of a canonical key.
func contextSegment(contextID string) string {
	if !strings.ContainsFunc(contextID, isUpperASCII) {
		return contextID
	}
	var b strings.Builder
	b.Grow(2 * len(contextID))
	for _, r := range contextID {
		if isUpperASCII(r) {
			b.WriteRune(upperMark)
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isUpperASCII(r rune) bool { return r >= 'A' && r <= 'Z' }

// ContextOf is the A2A contextId of a run's session: the part after
// ":a2a:" (and after its owner's tag, owner.go) for a session made by A2A,
// upper-case letters restored; else the session key itself (a task of
// another session, visible to the caller, read by GetTask).
func ContextOf(sessionKey string) string {
	_, seg, ok := strings.Cut(sessionKey, sessionMarker)
	if !ok || seg == "" {
		return sessionKey
	}
	if _, rest, tagged := strings.Cut(seg, ":"); tagged && rest != "" {
		// A contextId holds no ':' (checkContextID).
		seg = rest
	}
	if !strings.ContainsRune(seg, upperMark) {
		return seg
	}
	var b strings.Builder
	upper := false
	for _, r := range seg {
		switch {
		case r == upperMark && !upper:
			upper = true
			continue
		case upper && r >= 'a' && r <= 'z':
			r -= 'a' - 'A'
		}
		upper = false
		b.WriteRune(r)
	}
	return b.String()
}

// artifactID is the id of the reply artifact of a task (one per task).
func artifactID(runID string) string { return runID + "-reply" }

// timestamp formats Unix ms as RFC 3339 (UTC, milliseconds).
func timestamp(ms int64) string {
	if ms <= 0 {
		return ""
	}
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
}

// statusTime is when a run reached its current status.
func statusTime(r domain.Run) int64 {
	switch {
	case r.EndedAt > 0:
		return r.EndedAt
	case r.StartedAt > 0:
		return r.StartedAt
	case r.UpdatedAt > 0:
		return r.UpdatedAt
	}
	return r.CreatedAt
}

// replyArtifact is the artifact holding the run's reply, if it has one.
func replyArtifact(r domain.Run) (wire.Artifact, bool) {
	if r.Status != domain.RunOK || r.Reply == "" {
		return wire.Artifact{}, false
	}
	return wire.Artifact{ArtifactID: artifactID(r.ID), Name: "reply", Parts: []wire.Part{wire.TextPart(r.Reply)}}, true
}

// statusOf is the task status of a run: the state, and for an ended run
// an agent message with the reply or the error.
func statusOf(r domain.Run, ctxID string) wire.TaskStatus {
	st := wire.TaskStatus{State: StateOf(r.Status), Timestamp: timestamp(statusTime(r))}
	text := ""
	switch r.Status {
	case domain.RunOK:
		text = r.Reply
	case domain.RunError, domain.RunTimeout, domain.RunCancelled:
		text = r.Error
		if text == "" {
			text = "run " + string(r.Status)
		}
	}
	if text != "" {
		st.Message = &wire.Message{MessageID: r.ID + "-status", ContextID: ctxID, TaskID: r.ID,
			Role: wire.RoleAgent, Parts: []wire.Part{wire.TextPart(text)}}
	}
	return st
}

// TaskOf builds the task of a run. history bounds the history returned
// (nil: all of it, the user's message and the reply; 0: none).
func TaskOf(r domain.Run, history *int32) wire.Task {
	ctxID := ContextOf(r.SessionKey)
	t := wire.Task{ID: r.ID, ContextID: ctxID, Status: statusOf(r, ctxID),
		Metadata: map[string]any{"sessionKey": r.SessionKey, "runStatus": string(r.Status), "agentId": r.AgentID}}
	if a, ok := replyArtifact(r); ok {
		t.Artifacts = []wire.Artifact{a}
	}
	var h []wire.Message
	if r.Message != "" {
		h = append(h, wire.Message{MessageID: r.ID + "-in", ContextID: ctxID, TaskID: r.ID, Role: wire.RoleUser,
			Parts: []wire.Part{wire.TextPart(r.Message)}})
	}
	if t.Status.Message != nil && r.Status == domain.RunOK {
		h = append(h, *t.Status.Message)
	}
	if history != nil {
		n := int(*history)
		if n < len(h) {
			h = h[len(h)-max(n, 0):]
		}
	}
	if len(h) > 0 {
		t.History = h
	}
	return t
}
