package gateway_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestPostRequesterInQuery: the POST routes that take `as` in their body
// (send, spawn) also honour the `as` query every other route reads. They
// ignored it, so a caller narrowing itself with ?as= acted with its full
// rights instead; two different requesters are refused.
func TestPostRequesterInQuery(t *testing.T) {
	e := principalEnv(t)
	e.chatDone(t, boundSession, "claude hello")
	tests := []struct {
		name, token, path string
		body              any
		want              int
		contains          string
	}{
		{"bound token cannot spawn as another requester by query", tokBound, "/api/spawn?as=agent:work:main", map[string]any{"task": "t"}, 403, "not allowed"},
		{"bound token cannot send as another requester by query", tokBound, "/api/sessions/" + boundSession + "/send?as=agent:work:main", map[string]any{"message": "hi", "timeoutSeconds": 0}, 403, "not allowed"},
		{"operator spawns as the query's requester", tokOperator, "/api/spawn?as=agent:work:main", map[string]any{"task": "t"}, 200, "agent:work:subagent:"},
		{"the same requester twice is one", tokOperator, "/api/spawn?as=agent:work:main", map[string]any{"task": "t", "as": "agent:work:main"}, 200, "agent:work:subagent:"},
		{"two different requesters are refused", tokOperator, "/api/spawn?as=agent:work:main", map[string]any{"task": "t", "as": "agent:main:main"}, 400, "as given twice"},
		{"two different requesters are refused on send", tokOperator, "/api/sessions/main/send?as=agent:work:main", map[string]any{"message": "hi", "as": "agent:main:main"}, 400, "as given twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var raw json.RawMessage
			if code := e.doToken(t, tt.token, "POST", tt.path, tt.body, &raw); code != tt.want || !strings.Contains(string(raw), tt.contains) {
				t.Fatalf("POST %s = %d %s, want %d with %q", tt.path, code, raw, tt.want, tt.contains)
			}
		})
	}
}
