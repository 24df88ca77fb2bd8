package a2a

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/a2a/wire"
	"github.com/switchboard-go/switchboard/internal/api"
)

// TestBadInput: every refusal is a JSON-RPC error with the A2A code and a
// message naming the field (and the limit, where there is one).
func TestBadInput(t *testing.T) {
	h := newHarness(t)
	long := strings.Repeat("x", int(api.MessageChars.Max)+1)
	twoFields := map[string]any{"messageId": "b", "role": "ROLE_USER", "parts": []any{map[string]any{"text": "a", "url": "http://x"}}}
	tests := []struct {
		name     string
		method   string
		params   any
		code     int
		contains string
	}{
		{"unknown method", "DoThings", map[string]any{}, wire.CodeMethodNotFound, `"DoThings" not found`},
		{"no params", "SendMessage", nil, wire.CodeInvalidParams, "params are required"},
		{"no message", "SendMessage", map[string]any{}, wire.CodeInvalidParams, "message is required"},
		{"params wrong type", "SendMessage", map[string]any{"message": "hi"}, wire.CodeInvalidParams, "params.message"},
		{"no messageId", "SendMessage", map[string]any{"message": map[string]any{"role": "ROLE_USER", "parts": []any{map[string]any{"text": "a"}}}}, wire.CodeInvalidParams, "message.messageId is required"},
		{"agent role", "SendMessage", map[string]any{"message": map[string]any{"messageId": "b", "role": "ROLE_AGENT", "parts": []any{map[string]any{"text": "a"}}}}, wire.CodeInvalidParams, "message.role must be ROLE_USER"},
		{"no parts", "SendMessage", map[string]any{"message": map[string]any{"messageId": "b", "role": "ROLE_USER", "parts": []any{}}}, wire.CodeInvalidParams, "message.parts must hold at least one part"},
		{"two contents in a part", "SendMessage", map[string]any{"message": twoFields}, wire.CodeInvalidParams, "message.parts[0] must set exactly one of text, raw, url or data (found 2)"},
		{"file part", "SendMessage", map[string]any{"message": map[string]any{"messageId": "b", "role": "ROLE_USER", "parts": []any{map[string]any{"url": "http://x/f.pdf"}}}}, wire.CodeContentTypeNotSupported, "message.parts[0]: file parts"},
		{"bad contextId", "SendMessage", map[string]any{"message": userMsg("b", "has space", "x")}, wire.CodeInvalidParams, "message.contextId \"has space\" may contain only"},
		{"long contextId", "SendMessage", map[string]any{"message": userMsg("b", strings.Repeat("a", MaxContextIDChars+1), "x")}, wire.CodeInvalidParams, "message.contextId is too long"},
		{"oversized message", "SendMessage", map[string]any{"message": userMsg("b", "", long)}, wire.CodeInvalidParams, "message text is too long (100001 characters; max 100000"},
		// PostgreSQL cannot store U+0000: refused, not a 500.
		{"NUL in the text", "SendMessage", map[string]any{"message": userMsg("b", "", "a\x00b")}, wire.CodeInvalidParams, "message text: message must not contain null bytes"},
		{"NUL in the messageId", "SendMessage", map[string]any{"message": userMsg("b\x00", "", "x")}, wire.CodeInvalidParams, "message.messageId must not contain null bytes"},
		{"push config (older name)", "SendMessage", map[string]any{"message": userMsg("b2", "", "x"), "configuration": map[string]any{"pushNotificationConfig": map[string]any{"url": "http://x"}}}, wire.CodePushNotificationNotSupported, "configuration.pushNotificationConfig"},
		{"push config (proto name)", "SendMessage", map[string]any{"message": userMsg("b3", "", "x"), "configuration": map[string]any{"pushNotification": map[string]any{"url": "http://x"}}}, wire.CodePushNotificationNotSupported, "configuration.pushNotification"},
		{"push config", "SendMessage", map[string]any{"message": userMsg("b", "", "x"), "configuration": map[string]any{"taskPushNotificationConfig": map[string]any{"url": "http://x"}}}, wire.CodePushNotificationNotSupported, "push notifications"},
		{"negative send history", "SendMessage", map[string]any{"message": userMsg("b", "", "x"), "configuration": map[string]any{"historyLength": -2}}, wire.CodeInvalidParams, "params.configuration.historyLength must be at least 0"},
		{"unknown task", "GetTask", map[string]any{"id": "nope"}, wire.CodeTaskNotFound, "task not found: nope"},
		{"no task id", "GetTask", map[string]any{}, wire.CodeInvalidParams, "params.id is required"},
		{"negative history", "GetTask", map[string]any{"id": "x", "historyLength": -1}, wire.CodeInvalidParams, "params.historyLength must be at least 0"},
		{"cancel unknown", "CancelTask", map[string]any{"id": "nope"}, wire.CodeTaskNotFound, "task not found"},
		{"subscribe unknown", "SubscribeToTask", map[string]any{"id": "nope"}, wire.CodeTaskNotFound, "task not found"},
		{"list tasks page size", "ListTasks", map[string]any{"pageSize": 101}, wire.CodeInvalidParams, "params.pageSize must be 1 to 100"},
		{"list tasks token", "ListTasks", map[string]any{"pageToken": "forged"}, wire.CodeInvalidParams, "params.pageToken"},
		{"list tasks status", "ListTasks", map[string]any{"status": "TASK_STATE_DREAMING"}, wire.CodeInvalidParams, "params.status"},
		{"list tasks context", "ListTasks", map[string]any{"contextId": "a b"}, wire.CodeInvalidParams, "params.contextId"},
		{"push method", "CreateTaskPushNotificationConfig", map[string]any{}, wire.CodePushNotificationNotSupported, "push notifications"},
		{"0.3 no parts", "message/send", map[string]any{"message": map[string]any{"kind": "message", "messageId": "b", "role": "user", "parts": []any{}}}, wire.CodeInvalidParams, "message.parts must hold at least one part"},
		{"0.3 unknown part kind", "message/send", map[string]any{"message": map[string]any{"kind": "message", "messageId": "b", "role": "user", "parts": []any{map[string]any{"kind": "video"}}}}, wire.CodeInvalidParams, "params"},
		{"0.3 unknown task", "tasks/get", map[string]any{"id": "nope"}, wire.CodeTaskNotFound, "task not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.rpc(t, "operator", "main", tt.method, tt.params)
			if r.resp.Error == nil {
				t.Fatalf("no error; result %s", r.resp.Result)
			}
			if r.resp.Error.Code != tt.code || !strings.Contains(r.resp.Error.Message, tt.contains) {
				t.Errorf("error = %d %q, want %d containing %q", r.resp.Error.Code, r.resp.Error.Message, tt.code, tt.contains)
			}
			if string(r.resp.ID) != "7" {
				t.Errorf("id not echoed: %s", r.resp.ID)
			}
		})
	}
}

func TestEnvelopeErrors(t *testing.T) {
	h := newHarness(t)
	tests := []struct {
		name string
		body string
		hdr  []string
		code int
	}{
		{"not JSON", `{"jsonrpc":`, nil, wire.CodeParseError},
		// Valid JSON that is not a request object is an invalid request,
		// not a parse error (JSON-RPC 2.0): a batch, a string, a method
		// that is not a string.
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}]`, nil, wire.CodeInvalidRequest},
		{"empty batch", `[]`, nil, wire.CodeInvalidRequest},
		{"string", `"GetTask"`, nil, wire.CodeInvalidRequest},
		{"method a number", `{"jsonrpc":"2.0","id":1,"method":5}`, nil, wire.CodeInvalidRequest},
		{"wrong jsonrpc", `{"jsonrpc":"1.0","id":1,"method":"GetTask","params":{"id":"x"}}`, nil, wire.CodeInvalidRequest},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"GetTask","params":{"id":"x"}}`, nil, wire.CodeInvalidRequest},
		{"unsupported version", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}`, []string{wire.VersionHeader, "2.0"}, wire.CodeVersionNotSupported},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.post(t, "operator", "main", []byte(tt.body), tt.hdr...)
			if r.code() != tt.code {
				t.Errorf("code = %d (%+v), want %d", r.code(), r.resp.Error, tt.code)
			}
		})
	}
	// A POST to an agent that is not exposed is a JSON-RPC error (404),
	// which a client that got the URL wrong can read.
	if r := h.post(t, "operator", "ghost", []byte(`{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}`)); r.status != http.StatusNotFound ||
		r.resp.Error == nil || !strings.Contains(r.resp.Error.Message, "no agent with this id is exposed over A2A") {
		t.Errorf("POST to an unknown agent: %d %+v", r.status, r.resp.Error)
	}
	// Messages speak JSON, not Go: no Go type names reach the client.
	for _, body := range []string{`[]`, `{"jsonrpc":"2.0","id":1,"method":5}`,
		`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":"x"}}}`} {
		r := h.post(t, "operator", "main", []byte(body))
		if r.resp.Error == nil || strings.Contains(r.resp.Error.Message, "wire.") || strings.Contains(r.resp.Error.Message, "Go value") {
			t.Errorf("%s: error %+v names Go types", body, r.resp.Error)
		}
	}
	if r := h.post(t, "operator", "main", []byte(`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":"x"}}}`)); r.resp.Error == nil ||
		!strings.Contains(r.resp.Error.Message, "params.message.parts must be an array (got a string)") {
		t.Errorf("parts as a string: %+v", r.resp.Error)
	}
	// A request naming a version gets that version's methods only.
	if r := h.post(t, "operator", "main", []byte(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"}}`)); r.code() != wire.CodeMethodNotFound ||
		!strings.Contains(r.resp.Error.Message, "send A2A-Version: 0.3") {
		t.Errorf("0.3 method with A2A-Version 1.0: %+v", r.resp.Error)
	}
	if r := h.post(t, "operator", "main", []byte(`{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}`), wire.VersionHeader, "0.3"); r.code() != wire.CodeMethodNotFound {
		t.Errorf("1.0 method with A2A-Version 0.3: %+v", r.resp.Error)
	}
	if r := h.post(t, "operator", "main", []byte(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"}}`), wire.VersionHeader, "0.3.0"); r.code() != wire.CodeTaskNotFound {
		t.Errorf("0.3 method with A2A-Version 0.3.0: %+v", r.resp.Error)
	}
	// No version header is 0.3, which is spoken too.
	r := h.post(t, "operator", "main", []byte(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"}}`), wire.VersionHeader, "")
	if r.code() != wire.CodeTaskNotFound {
		t.Errorf("0.3 without a header: %+v", r.resp.Error)
	}
}

func TestAuth(t *testing.T) {
	h := newHarness(t)
	// No credential: 401.
	r := h.rpc(t, "", "main", "GetTask", map[string]any{"id": "x"})
	if r.status != http.StatusUnauthorized || r.resp.Error == nil {
		t.Errorf("no credential: %d %+v", r.status, r.resp.Error)
	}
	// A read-only credential cannot send: 403, data.code forbidden.
	r = h.rpc(t, "reader", "main", "SendMessage", map[string]any{"message": userMsg("a-1", "", "hi")})
	if r.status != http.StatusForbidden || r.resp.Error == nil || !strings.Contains(r.resp.Error.Message, "missing scope") {
		t.Fatalf("reader send: %d %+v", r.status, r.resp.Error)
	}
	if d, _ := json.Marshal(r.resp.Error.Data); !strings.Contains(string(d), `"forbidden"`) {
		t.Errorf("data = %s", d)
	}
	// A credential bound to agent:main:main is that session: its A2A
	// contexts are sessions of its tree (owner_test.go) …
	r = h.rpc(t, "bound", "main", "SendMessage", map[string]any{"message": userMsg("a-2", "", "hi")})
	if r.resp.Error != nil {
		t.Errorf("bound send into its own tree: %d %+v", r.status, r.resp.Error)
	}
	// … and a task of a session it cannot see does not exist for it.
	ok := h.rpc(t, "operator", "main", "SendMessage", map[string]any{"message": userMsg("a-3", "", "hi")})
	task := decode[wire.SendMessageResponse](t, ok.resp.Result).Task
	if g := h.rpc(t, "bound", "main", "GetTask", map[string]any{"id": task.ID}); g.code() != wire.CodeTaskNotFound {
		t.Errorf("bound GetTask of an invisible task: %+v", g.resp.Error)
	}
	// Cards need no credential.
	if st, _ := getCard(t, h, wire.CardPath); st != http.StatusOK {
		t.Errorf("card without credential: %d", st)
	}
}
