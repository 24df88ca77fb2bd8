package remote

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/switchboard-go/switchboard/internal/a2a/wire"
)

// The 0.3 generation's shapes, only as far as the client needs them
// (message/send, tasks/get, tasks/cancel): "kind" discriminators,
// lower-case states and roles.
type legacyPart struct {
	Kind string `json:"kind"`
	Text string `json:"text,omitempty"`
}

type legacyMessage struct {
	Kind      string         `json:"kind"`
	MessageID string         `json:"messageId"`
	ContextID string         `json:"contextId,omitempty"`
	TaskID    string         `json:"taskId,omitempty"`
	Role      string         `json:"role"`
	Parts     []legacyPart   `json:"parts"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

type legacySendParams struct {
	Message       legacyMessage `json:"message"`
	Configuration struct {
		Blocking bool `json:"blocking"`
	} `json:"configuration"`
}

type legacyTaskID struct {
	ID string `json:"id"`
}

// legacyResult is a 0.3 message/send or tasks/get result: a task, or a
// message (kind says which).
type legacyResult struct {
	Kind      string `json:"kind"`
	ID        string `json:"id"`
	ContextID string `json:"contextId"`
	Status    struct {
		State   string         `json:"state"`
		Message *legacyMessage `json:"message"`
	} `json:"status"`
	Artifacts []struct {
		ArtifactID string       `json:"artifactId"`
		Parts      []legacyPart `json:"parts"`
	} `json:"artifacts"`
	Parts []legacyPart `json:"parts"`
}

// legacyStates maps 0.3 task states to 1.0's.
var legacyStates = map[string]wire.TaskState{
	"submitted":      wire.TaskStateSubmitted,
	"working":        wire.TaskStateWorking,
	"input-required": wire.TaskStateInputRequired,
	"auth-required":  wire.TaskStateAuthRequired,
	"completed":      wire.TaskStateCompleted,
	"canceled":       wire.TaskStateCanceled,
	"failed":         wire.TaskStateFailed,
	"rejected":       wire.TaskStateRejected,
}

// modern translates a 0.3 task to the 1.0 shape.
func (l legacyResult) modern() (wire.Task, error) {
	state, ok := legacyStates[strings.ToLower(l.Status.State)]
	if !ok {
		return wire.Task{}, fmt.Errorf("%w: task %s has state %q", ErrProtocol, l.ID, l.Status.State)
	}
	t := wire.Task{ID: l.ID, ContextID: l.ContextID, Status: wire.TaskStatus{State: state}}
	if m := l.Status.Message; m != nil {
		t.Status.Message = &wire.Message{Role: wire.RoleAgent, Parts: legacyParts(m.Parts)}
	}
	for _, a := range l.Artifacts {
		t.Artifacts = append(t.Artifacts, wire.Artifact{Parts: legacyParts(a.Parts)})
	}
	return t, nil
}

func legacyParts(ps []legacyPart) []wire.Part {
	var out []wire.Part
	for _, p := range ps {
		if p.Kind == "text" {
			out = append(out, wire.TextPart(p.Text))
		}
	}
	return out
}

// legacyParams is msg as 0.3 message/send (or message/stream) params.
func legacyParams(msg Message, blocking bool) legacySendParams {
	var p legacySendParams
	p.Message = legacyMessage{Kind: "message", MessageID: msg.id(), ContextID: msg.ContextID, Role: "user",
		Parts: []legacyPart{{Kind: "text", Text: msg.Text}}}
	if len(msg.Chain) > 0 {
		p.Message.Metadata = map[string]any{ChainKey: msg.Chain}
	}
	p.Configuration.Blocking = blocking
	return p
}

// sendLegacy is Send over protocol 0.3 (message/send, not blocking so
// that the task is known at once, then tasks/get).
func (c *Client) sendLegacy(ctx context.Context, r Remote, ep Endpoint, msg Message) (Result, error) {
	req := detach(ctx)
	defer req.end()
	var out legacyResult
	if err := c.call(req.ctx, r, ep, wire.LegacyMethodSendMessage, legacyParams(msg, false), &out); err != nil {
		if ctx.Err() != nil {
			return Result{}, context.Cause(ctx)
		}
		return Result{}, err
	}
	if out.Kind == "message" {
		return Result{Reply: partsText(legacyParts(out.Parts)), Version: ep.Version}, nil
	}
	task, err := out.modern()
	if err != nil {
		return Result{}, err
	}
	return c.poll(ctx, r, ep, task)
}

// legacyStreamEvent is one 0.3 stream event: a task, a message, a
// status-update or an artifact-update (kind says which).
type legacyStreamEvent struct {
	legacyResult
	TaskID   string `json:"taskId"`
	Artifact *struct {
		ArtifactID string       `json:"artifactId"`
		Parts      []legacyPart `json:"parts"`
	} `json:"artifact"`
	Append bool `json:"append"`
}

// legacyEvent translates a 0.3 stream event to the 1.0 shape.
func legacyEvent(raw json.RawMessage) (wire.StreamResponse, error) {
	var ev legacyStreamEvent
	if err := json.Unmarshal(raw, &ev); err != nil {
		return wire.StreamResponse{}, fmt.Errorf("%w: stream event: %v", ErrProtocol, err)
	}
	switch ev.Kind {
	case "message":
		return wire.StreamResponse{Message: &wire.Message{Role: wire.RoleAgent, Parts: legacyParts(ev.Parts)}}, nil
	case "task":
		t, err := ev.modern()
		if err != nil {
			return wire.StreamResponse{}, err
		}
		for i, a := range ev.Artifacts {
			t.Artifacts[i].ArtifactID = a.ArtifactID
		}
		return wire.StreamResponse{Task: &t}, nil
	case "status-update":
		ev.ID = ev.TaskID
		t, err := ev.modern()
		if err != nil {
			return wire.StreamResponse{}, err
		}
		return wire.StreamResponse{StatusUpdate: &wire.TaskStatusUpdateEvent{TaskID: ev.TaskID, ContextID: ev.ContextID, Status: t.Status}}, nil
	case "artifact-update":
		if ev.Artifact == nil {
			return wire.StreamResponse{}, fmt.Errorf("%w: artifact-update without an artifact", ErrProtocol)
		}
		return wire.StreamResponse{ArtifactUpdate: &wire.TaskArtifactUpdateEvent{TaskID: ev.TaskID, ContextID: ev.ContextID,
			Artifact: wire.Artifact{ArtifactID: ev.Artifact.ArtifactID, Parts: legacyParts(ev.Artifact.Parts)}, Append: ev.Append}}, nil
	}
	return wire.StreamResponse{}, fmt.Errorf("%w: stream event of kind %q", ErrProtocol, ev.Kind)
}
