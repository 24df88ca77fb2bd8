// Package remotetest is a fake A2A server for tests of switchboard's A2A
// client: an agent card and the JSON-RPC methods the client calls
// (SendMessage, GetTask, CancelTask of 1.0; message/send, tasks/get,
// tasks/cancel of 0.3), written from the specification, with behaviour
// the test picks per message.
package remotetest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/switchboard-go/switchboard/internal/a2a/wire"
)

// Received is one message the fake got.
type Received struct {
	Method    string
	Version   string // the A2A-Version header
	MessageID string
	ContextID string
	Text      string
	Metadata  map[string]any
	Auth      string
}

// Answer is what the fake does with a message.
type Answer struct {
	// State is the task's final state (default completed).
	State wire.TaskState
	// Reply is the artifact text (completed) or the status message.
	Reply string
	// Polls is how many GetTask calls answer "working" before the final
	// state; 0 answers the final state at once.
	Polls int
	// AsMessage answers SendMessage with a message instead of a task.
	AsMessage bool
}

// Server is the fake. Set its fields before the first request.
type Server struct {
	*httptest.Server
	// Token, when set, is required as a Bearer token on JSON-RPC calls.
	Token string
	// Legacy serves a 0.3 card (url + protocolVersion 0.3) and speaks 0.3.
	Legacy bool
	// Card, when set, is served as the card instead.
	Card json.RawMessage
	// Answer decides the answer to each message (default: echo).
	Answer func(Received) Answer

	mu       sync.Mutex
	received []Received
	tasks    map[string]*task
	cancels  []string
	n        int
}

type task struct {
	t     wire.Task
	final wire.TaskStatus
	arts  []wire.Artifact
	polls int
}

// New starts a fake; it stops when the test's Cleanup calls Close.
func New() *Server {
	s := &Server{tasks: map[string]*task{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+wire.CardPath, s.card)
	mux.HandleFunc("POST /rpc", s.rpc)
	s.Server = httptest.NewServer(mux)
	return s
}

// CardURL is the fake's card URL.
func (s *Server) CardURL() string { return s.URL + wire.CardPath }

// Received returns the messages received so far.
func (s *Server) Received() []Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Received(nil), s.received...)
}

// Cancels returns the task ids CancelTask was called with.
func (s *Server) Cancels() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.cancels...)
}

func (s *Server) card(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if s.Card != nil {
		_, _ = w.Write(s.Card)
		return
	}
	if s.Legacy {
		fmt.Fprintf(w, `{"name":"fake03","description":"fake","url":%q,"protocolVersion":"0.3.0","preferredTransport":"JSONRPC","version":"1","capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`, s.URL+"/rpc")
		return
	}
	fmt.Fprintf(w, `{"name":"fake10","description":"fake","supportedInterfaces":[{"url":%q,"protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"version":"1","capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`, s.URL+"/rpc")
}

func (s *Server) rpc(w http.ResponseWriter, r *http.Request) {
	if s.Token != "" && r.Header.Get("Authorization") != "Bearer "+s.Token {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	var req wire.Request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeRPC(w, nil, nil, wire.Errorf(wire.CodeParseError, "parse error"))
		return
	}
	result, rpcErr := s.dispatch(r, req)
	writeRPC(w, req.ID, result, rpcErr)
}

func writeRPC(w http.ResponseWriter, id json.RawMessage, result any, rpcErr *wire.Error) {
	resp := map[string]any{"jsonrpc": "2.0", "id": id}
	if rpcErr != nil {
		resp["error"] = rpcErr
	} else {
		resp["result"] = result
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}

func (s *Server) dispatch(r *http.Request, req wire.Request) (any, *wire.Error) {
	legacy := strings.Contains(req.Method, "/")
	switch req.Method {
	case wire.MethodSendMessage, wire.LegacyMethodSendMessage:
		rec := Received{Method: req.Method, Version: r.Header.Get(wire.VersionHeader), Auth: r.Header.Get("Authorization")}
		if legacy {
			var p struct {
				Message struct {
					MessageID string `json:"messageId"`
					ContextID string `json:"contextId"`
					Parts     []struct{ Kind, Text string }
					Metadata  map[string]any `json:"metadata"`
				} `json:"message"`
			}
			if err := json.Unmarshal(req.Params, &p); err != nil {
				return nil, wire.Errorf(wire.CodeInvalidParams, "%v", err)
			}
			rec.MessageID, rec.ContextID, rec.Metadata = p.Message.MessageID, p.Message.ContextID, p.Message.Metadata
			for _, part := range p.Message.Parts {
				rec.Text += part.Text
			}
		} else {
			var p wire.SendMessageRequest
			if err := json.Unmarshal(req.Params, &p); err != nil || p.Message == nil {
				return nil, wire.Errorf(wire.CodeInvalidParams, "bad params")
			}
			rec.MessageID, rec.ContextID, rec.Metadata = p.Message.MessageID, p.Message.ContextID, p.Message.Metadata
			for _, part := range p.Message.Parts {
				if part.Text != nil {
					rec.Text += *part.Text
				}
			}
		}
		ans := Answer{Reply: "fake echo: " + rec.Text}
		if s.Answer != nil {
			ans = s.Answer(rec)
		}
		if ans.State == "" {
			ans.State = wire.TaskStateCompleted
		}
		s.mu.Lock()
		s.received = append(s.received, rec)
		s.n++
		id := fmt.Sprintf("task-%d", s.n)
		s.mu.Unlock()
		if ans.AsMessage {
			m := wire.Message{MessageID: "m-" + id, ContextID: rec.ContextID, Role: wire.RoleAgent, Parts: []wire.Part{wire.TextPart(ans.Reply)}}
			if legacy {
				return map[string]any{"kind": "message", "messageId": m.MessageID, "role": "agent", "parts": []any{map[string]string{"kind": "text", "text": ans.Reply}}}, nil
			}
			return wire.SendMessageResponse{Message: &m}, nil
		}
		t := &task{t: wire.Task{ID: id, ContextID: rec.ContextID, Status: wire.TaskStatus{State: wire.TaskStateWorking}}, polls: ans.Polls}
		t.final = wire.TaskStatus{State: ans.State}
		if ans.State == wire.TaskStateCompleted {
			t.arts = []wire.Artifact{{ArtifactID: "a-" + id, Parts: []wire.Part{wire.TextPart(ans.Reply)}}}
		} else {
			t.final.Message = &wire.Message{MessageID: "s-" + id, Role: wire.RoleAgent, Parts: []wire.Part{wire.TextPart(ans.Reply)}}
		}
		if ans.Polls == 0 {
			t.settle()
		}
		s.mu.Lock()
		s.tasks[id] = t
		out := t.t
		s.mu.Unlock()
		if !legacy {
			return wire.SendMessageResponse{Task: &out}, nil
		}
		return shape(out, legacy), nil
	case wire.MethodGetTask, wire.LegacyMethodGetTask:
		var p wire.GetTaskRequest
		_ = json.Unmarshal(req.Params, &p)
		s.mu.Lock()
		defer s.mu.Unlock()
		t, ok := s.tasks[p.ID]
		if !ok {
			return nil, wire.Errorf(wire.CodeTaskNotFound, "task not found: %s", p.ID)
		}
		if t.polls > 0 {
			t.polls--
		} else {
			t.settle()
		}
		return shape(t.t, legacy), nil
	case wire.MethodCancelTask, wire.LegacyMethodCancelTask:
		var p wire.CancelTaskRequest
		_ = json.Unmarshal(req.Params, &p)
		s.mu.Lock()
		defer s.mu.Unlock()
		s.cancels = append(s.cancels, p.ID)
		t, ok := s.tasks[p.ID]
		if !ok {
			return nil, wire.Errorf(wire.CodeTaskNotFound, "task not found: %s", p.ID)
		}
		t.t.Status = wire.TaskStatus{State: wire.TaskStateCanceled}
		return shape(t.t, legacy), nil
	}
	return nil, wire.Errorf(wire.CodeMethodNotFound, "method not found: %s", req.Method)
}

func (t *task) settle() {
	t.t.Status = t.final
	t.t.Artifacts = t.arts
}

// shape is a task as 1.0 or 0.3 (kind "task", lower-case
// states) serializes it.
func shape(t wire.Task, legacy bool) any {
	if !legacy {
		return t
	}
	state := strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(string(t.Status.State), "TASK_STATE_"), "_", "-"))
	out := map[string]any{"kind": "task", "id": t.ID, "contextId": t.ContextID, "status": map[string]any{"state": state}}
	if m := t.Status.Message; m != nil {
		out["status"].(map[string]any)["message"] = map[string]any{"kind": "message", "role": "agent", "messageId": m.MessageID, "parts": []any{map[string]string{"kind": "text", "text": *m.Parts[0].Text}}}
	}
	var arts []any
	for _, a := range t.Artifacts {
		arts = append(arts, map[string]any{"artifactId": a.ArtifactID, "parts": []any{map[string]string{"kind": "text", "text": *a.Parts[0].Text}}})
	}
	if arts != nil {
		out["artifacts"] = arts
	}
	return out
}
