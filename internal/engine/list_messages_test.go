package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestListMessagesAreHistoryMessages: for an operator, each message of a
// sessions_list row is, byte for byte, what sessions_history (raw) shows for it — its id
// first, the stored message passed through, <, > and & escaped as
// encoding/json escapes them — with tool results left out (package query
// checks that a store without a tails reader lists the same bytes).
func TestListMessagesAreHistoryMessages(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{
		toolCall(config.ScriptWhen{Role: "user", Message: "^tools$"}, "agents_list", nil),
		rule(config.ScriptWhen{Message: "^markup$"}, `<b>tom & "jerry"</b> é ✓ \ end`),
	}, nil)
	h.chat("main", "tools")
	h.chat("main", "markup")
	h.chat("agent:main:other", "markup")

	for _, limit := range []int{1, 3, 20} {
		res := listResult(t, h.call(Requester{Operator: true}, api.ToolSessionsList, fmt.Sprintf(`{"messageLimit":%d}`, limit)))
		var row *api.SessionRow
		for i := range res.Sessions {
			if res.Sessions[i].Key == "main" {
				row = &res.Sessions[i]
			}
		}
		if row == nil {
			t.Fatalf("no main row in %v", keysOf(res))
		}
		hist, err := h.e.history(t.Context(), Requester{Operator: true}, api.HistoryRequest{SessionKey: "agent:main:main", Limit: limit, Raw: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(hist.Messages) != min(limit, 5) { // tools, tool call, final, markup, reply (tool result left out)
			t.Fatalf("limit %d: history has %d messages", limit, len(hist.Messages))
		}
		if len(row.Messages) != len(hist.Messages) {
			t.Fatalf("limit %d: listed %d messages, history %d", limit, len(row.Messages), len(hist.Messages))
		}
		for i, lm := range row.Messages {
			got, err := json.Marshal(lm)
			if err != nil {
				t.Fatal(err)
			}
			want, err := json.Marshal(hist.Messages[i])
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) || lm.ID == "" || lm.ID != hist.Messages[i].ID {
				t.Fatalf("limit %d, message %d:\nlisted  %s\nhistory %s", limit, i, got, want)
			}
			if m, err := lm.Message(); err != nil || m.Role == domain.RoleToolResult || m.ID != lm.ID {
				t.Fatalf("limit %d, message %d decodes to %+v, %v", limit, i, m, err)
			}
		}
		if got := string(mustJSON(t, row.Messages[len(row.Messages)-1])); !bytes.Contains([]byte(got), []byte(`\u003cb\u003etom \u0026 \"jerry\"\u003c/b\u003e é ✓ \\ end`)) {
			t.Fatalf("newest message %s: text not as encoding/json writes it", got)
		}

	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestListMessagesMaskedForNonOperators: a requester without operator
// rights gets a listing's messageLimit messages sanitized as
// sessions_history gives them — secrets masked — while the operator's
// listing keeps them as stored.
func TestListMessagesMaskedForNonOperators(t *testing.T) {
	const secret = "sk-abcdefghijklmnopqrstuvwxyz123456"
	h := newHarness(t, nil, agentVisibility)
	h.chat("agent:main:other", "my key is "+secret)
	listed := func(req Requester) string {
		res := listResult(t, h.call(req, api.ToolSessionsList, `{"messageLimit":5}`))
		for _, r := range res.Sessions {
			if strings.HasSuffix(r.Key, "other") {
				return string(mustJSON(t, r.Messages))
			}
		}
		t.Fatalf("no row of agent:main:other in %v", keysOf(res))
		return ""
	}
	if got := listed(Requester{}); strings.Contains(got, secret) || !strings.Contains(got, "my key is sk-abc") {
		t.Errorf("a session's listing shows %s, want the secret masked", got)
	}
	hist, err := h.e.history(t.Context(), Requester{}, api.HistoryRequest{SessionKey: "agent:main:other", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(mustJSON(t, hist.Messages)); strings.Contains(got, secret) {
		t.Fatalf("history shows the secret: %s", got)
	}
	if got := listed(Requester{Operator: true}); !strings.Contains(got, secret) {
		t.Errorf("the operator's listing %s lacks the stored text", got)
	}
}
