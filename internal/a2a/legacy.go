package a2a

import (
	"encoding/json"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/switchboard-go/switchboard/internal/a2a/wire"
)

// The 0.3 generation (message/send, message/stream, tasks/get,
// tasks/cancel, tasks/resubscribe) uses the official Go SDK's types
// (github.com/a2aproject/a2a-go/a2a, which speaks 0.3): this file converts
// between them and the 1.0 shapes the rest of the package works in.

// legacySend is a checked 0.3 message/send params.
type legacySend struct {
	msg     *wire.Message
	wait    bool
	history *int32
	push    *pushRequest
}

// decodeLegacySend reads MessageSendParams (0.3).
func decodeLegacySend(raw json.RawMessage) (legacySend, *rpcError) {
	var p a2a.MessageSendParams
	if e := decodeParams(raw, &p); e != nil {
		return legacySend{}, e
	}
	out := legacySend{wait: true}
	if c := p.Config; c != nil {
		if c.PushConfig != nil {
			r := fromLegacyPush("", *c.PushConfig)
			out.push = &r
		}
		if c.Blocking != nil {
			out.wait = *c.Blocking
		}
		if c.HistoryLength != nil {
			if *c.HistoryLength < 0 {
				return legacySend{}, invalidParams("params.configuration.historyLength must be at least 0 (got %d)", *c.HistoryLength)
			}
			h := int32(min(*c.HistoryLength, 1<<20))
			out.history = &h
		}
	}
	if p.Message != nil {
		m := fromLegacyMessage(p.Message)
		out.msg = &m
	}
	return out, nil
}

// decodeLegacyQuery reads TaskQueryParams (0.3).
func decodeLegacyQuery(raw json.RawMessage) (string, *int32, *rpcError) {
	var q a2a.TaskQueryParams
	if e := decodeParams(raw, &q); e != nil {
		return "", nil, e
	}
	var h *int32
	if q.HistoryLength != nil {
		if *q.HistoryLength < 0 {
			return "", nil, invalidParams("params.historyLength must be at least 0 (got %d)", *q.HistoryLength)
		}
		v := int32(min(*q.HistoryLength, 1<<20))
		h = &v
	}
	return string(q.ID), h, nil
}

// fromLegacyMessage converts a 0.3 message to the 1.0 shape; checkMessage
// then applies the same rules to both.
func fromLegacyMessage(m *a2a.Message) wire.Message {
	out := wire.Message{MessageID: m.ID, ContextID: m.ContextID, TaskID: string(m.TaskID), Metadata: m.Metadata}
	switch m.Role {
	case a2a.MessageRoleUser:
		out.Role = wire.RoleUser
	case a2a.MessageRoleAgent:
		out.Role = wire.RoleAgent
	default:
		out.Role = wire.Role(m.Role)
	}
	for _, p := range m.Parts {
		switch v := p.(type) {
		case a2a.TextPart:
			out.Parts = append(out.Parts, wire.TextPart(v.Text))
		case a2a.DataPart:
			b, _ := json.Marshal(v.Data)
			out.Parts = append(out.Parts, wire.Part{Data: b})
		case a2a.FilePart:
			out.Parts = append(out.Parts, wire.Part{URL: "file"})
		}
	}
	return out
}

// legacyState maps a 1.0 task state to 0.3.
func legacyState(s wire.TaskState) a2a.TaskState {
	switch s {
	case wire.TaskStateSubmitted:
		return a2a.TaskStateSubmitted
	case wire.TaskStateWorking:
		return a2a.TaskStateWorking
	case wire.TaskStateCompleted:
		return a2a.TaskStateCompleted
	case wire.TaskStateFailed:
		return a2a.TaskStateFailed
	case wire.TaskStateCanceled:
		return a2a.TaskStateCanceled
	case wire.TaskStateRejected:
		return a2a.TaskStateRejected
	case wire.TaskStateInputRequired:
		return a2a.TaskStateInputRequired
	case wire.TaskStateAuthRequired:
		return a2a.TaskStateAuthRequired
	}
	return a2a.TaskStateUnknown
}

func legacyParts(ps []wire.Part) a2a.ContentParts {
	out := a2a.ContentParts{}
	for _, p := range ps {
		switch {
		case p.Text != nil:
			out = append(out, a2a.TextPart{Text: *p.Text, Metadata: p.Metadata})
		case len(p.Data) > 0:
			var m map[string]any
			if json.Unmarshal(p.Data, &m) != nil {
				m = map[string]any{"value": json.RawMessage(p.Data)}
			}
			out = append(out, a2a.DataPart{Data: m, Metadata: p.Metadata})
		}
	}
	return out
}

// legacyMessage converts a 1.0 message to 0.3.
func legacyMessage(m wire.Message) *a2a.Message {
	role := a2a.MessageRoleAgent
	if m.Role == wire.RoleUser {
		role = a2a.MessageRoleUser
	}
	return &a2a.Message{ID: m.MessageID, ContextID: m.ContextID, TaskID: a2a.TaskID(m.TaskID), Role: role,
		Parts: legacyParts(m.Parts), Metadata: m.Metadata}
}

func legacyStatus(s wire.TaskStatus) a2a.TaskStatus {
	out := a2a.TaskStatus{State: legacyState(s.State)}
	if s.Message != nil {
		out.Message = legacyMessage(*s.Message)
	}
	if t, err := time.Parse(time.RFC3339Nano, s.Timestamp); err == nil {
		out.Timestamp = &t
	}
	return out
}

func legacyArtifact(a wire.Artifact) *a2a.Artifact {
	return &a2a.Artifact{ID: a2a.ArtifactID(a.ArtifactID), Name: a.Name, Description: a.Description,
		Parts: legacyParts(a.Parts), Metadata: a.Metadata}
}

// legacyTask converts a 1.0 task to 0.3.
func legacyTask(t wire.Task) *a2a.Task {
	out := &a2a.Task{ID: a2a.TaskID(t.ID), ContextID: t.ContextID, Status: legacyStatus(t.Status), Metadata: t.Metadata}
	for _, a := range t.Artifacts {
		out.Artifacts = append(out.Artifacts, legacyArtifact(a))
	}
	for _, m := range t.History {
		out.History = append(out.History, legacyMessage(m))
	}
	return out
}
