package wire

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestShapes pins the ProtoJSON shapes of a2a.proto 1.0 that clients of
// other languages parse: camelCase names, enum strings, oneofs as one key.
func TestShapes(t *testing.T) {
	task := Task{ID: "t1", ContextID: "c1", Status: TaskStatus{State: TaskStateCompleted,
		Message: &Message{MessageID: "m", Role: RoleAgent, Parts: []Part{TextPart("hi")}}},
		Artifacts: []Artifact{{ArtifactID: "a", Parts: []Part{{Data: json.RawMessage(`{"k":1}`)}}}}}
	b, err := json.Marshal(StreamResponse{Task: &task})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`{"task":{"id":"t1","contextId":"c1"`, `"state":"TASK_STATE_COMPLETED"`,
		`"role":"ROLE_AGENT","parts":[{"text":"hi"}]`, `"artifacts":[{"artifactId":"a","parts":[{"data":{"k":1}}]}]`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %s", b, want)
		}
	}
	// An empty text part is still a text part.
	if b, _ := json.Marshal(TextPart("")); string(b) != `{"text":""}` {
		t.Errorf("empty text part = %s", b)
	}
	// A 1.0 request as a client sends it.
	var req SendMessageRequest
	in := `{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"x"},{"url":"https://f","mediaType":"application/pdf","filename":"f.pdf"}]},"configuration":{"returnImmediately":true,"historyLength":2}}`
	if err := json.Unmarshal([]byte(in), &req); err != nil {
		t.Fatal(err)
	}
	if req.Message.Role != RoleUser || *req.Message.Parts[0].Text != "x" || req.Message.Parts[1].URL != "https://f" ||
		req.Message.Parts[1].MediaType != "application/pdf" || !req.Configuration.ReturnImmediately || *req.Configuration.HistoryLength != 2 {
		t.Errorf("decoded %+v", req)
	}
}

func TestStates(t *testing.T) {
	for _, tt := range []struct {
		s                     TaskState
		terminal, interrupted bool
	}{
		{TaskStateSubmitted, false, false}, {TaskStateWorking, false, false},
		{TaskStateCompleted, true, false}, {TaskStateFailed, true, false}, {TaskStateCanceled, true, false}, {TaskStateRejected, true, false},
		{TaskStateInputRequired, false, true}, {TaskStateAuthRequired, false, true},
	} {
		if tt.s.Terminal() != tt.terminal || tt.s.Interrupted() != tt.interrupted {
			t.Errorf("%s: terminal %v interrupted %v", tt.s, tt.s.Terminal(), tt.s.Interrupted())
		}
	}
}
