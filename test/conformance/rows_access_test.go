package conformance

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// scopeRows: each tool needs the scope of what it does, on
// /api/tools, tools.invoke and MCP alike.
func scopeRows(_ *world) []row {
	refused := outcome{Code: "forbidden", Msg: "missing scope"}
	send := m{"sessionKey": "agent:main:f1", "message": "from a reader", "timeoutSeconds": 0}
	spawn := m{"task": "from a reader"}
	cancel := m{"action": "cancel", "target": "all"}
	noCLI := []cell{na(sCLI, cliIsOperator), na(sCLIGW, cliIsOperator), na(sMCPStdio, stdioIsOwner)}
	return []row{
		{finding: "1", name: "read token: sessions_send refused for missing scope", want: refused, cells: append([]cell{
			httpSendC(readToken, "agent:main:f1", m{"message": "from a reader", "timeoutSeconds": 0}),
			httpToolC(readToken, "", "sessions_send", send),
			wsToolC(readToken, "", "sessions_send", send),
			mcpHTTPC(readToken, "sessions_send", send),
		}, noCLI...)},
		{finding: "1", name: "read token: sessions_spawn refused for missing scope", want: refused, cells: append([]cell{
			httpC(readToken, http.MethodPost, "/api/spawn", spawn),
			httpToolC(readToken, "", "sessions_spawn", spawn),
			wsC(readToken, "sessions.spawn", spawn),
			wsToolC(readToken, "", "sessions_spawn", spawn),
			mcpHTTPC(readToken, "sessions_spawn", spawn),
		}, noCLI...)},
		{finding: "1", name: "read token: subagents cancel refused for missing scope", want: refused, cells: append([]cell{
			httpToolC(readToken, "", "subagents", cancel),
			wsToolC(readToken, "", "subagents", cancel),
			mcpHTTPC(readToken, "subagents", cancel),
		}, noCLI...)},
		{finding: "1", name: "read token: sessions_list allowed", want: outcome{OK: true}, cells: append([]cell{
			httpC(readToken, http.MethodGet, "/api/sessions", nil),
			httpToolC(readToken, "", "sessions_list", m{}),
			wsC(readToken, "sessions.list", m{}),
			wsToolC(readToken, "", "sessions_list", m{}),
			mcpHTTPC(readToken, "sessions_list", m{}),
		}, noCLI...)},
		{finding: "1", name: "write token: sessions_send allowed", want: outcome{OK: true, Status: "accepted"}, cells: append([]cell{
			httpSendC(writeToken, "agent:main:f1w", m{"message": "from a writer", "timeoutSeconds": 0}),
			httpToolC(writeToken, "", "sessions_send", m{"sessionKey": "agent:main:f1w", "message": "from a writer", "timeoutSeconds": 0}),
			wsToolC(writeToken, "", "sessions_send", m{"sessionKey": "agent:main:f1w", "message": "from a writer", "timeoutSeconds": 0}),
			mcpHTTPC(writeToken, "sessions_send", m{"sessionKey": "agent:main:f1w", "message": "from a writer", "timeoutSeconds": 0}),
		}, noCLI...)},
	}
}

// boundRows: a session-bound token is its session on every
// surface, events included.
func boundRows(_ *world) []row {
	forbidden := outcome{Code: "forbidden"}
	noCLI := []cell{na(sCLI, cliIsOperator), na(sCLIGW, cliIsOperator), na(sMCPStdio, stdioIsOwner)}
	seesForeign := func(p []byte) map[string]string {
		return map[string]string{"shows " + foreignKey: has(p, "other-secret")}
	}
	return []row{
		{finding: "2", name: "bound token: GET /api/runs shows only its own sessions' runs",
			want: outcome{OK: true, Fields: map[string]string{"runs of other agents' sessions": "0", "own runs listed": "true"}},
			fields: func(p []byte) map[string]string {
				var r struct {
					Runs []struct {
						SessionKey string `json:"sessionKey"`
					} `json:"runs"`
				}
				_ = json.Unmarshal(p, &r)
				other, own := 0, false
				for _, run := range r.Runs {
					switch {
					case run.SessionKey == boundKey:
						own = true
					case !strings.HasPrefix(run.SessionKey, "agent:guest:"):
						other++
					}
				}
				return map[string]string{"runs of other agents' sessions": fmt.Sprint(other), "own runs listed": fmt.Sprint(own)}
			},
			cells: append([]cell{
				httpC(boundToken, http.MethodGet, "/api/runs?limit=1000", nil),
				na(sWS, "the WS protocol has no method that lists runs"),
				na(sMCPHTTP, "no tool lists runs"),
			}, noCLI...)},
		{finding: "2", name: "bound token: sessions list shows no foreign session", want: outcome{OK: true, Fields: map[string]string{"shows " + foreignKey: "false"}},
			fields: seesForeign, cells: append([]cell{
				httpC(boundToken, http.MethodGet, "/api/sessions", nil),
				httpToolC(boundToken, "", "sessions_list", m{}),
				wsC(boundToken, "sessions.list", m{}),
				wsToolC(boundToken, "", "sessions_list", m{}),
				mcpHTTPC(boundToken, "sessions_list", m{}),
			}, noCLI...)},
		{finding: "2", name: "bound token: chat into another session refused", want: forbidden, cells: append([]cell{
			httpC(boundToken, http.MethodPost, "/api/sessions/"+esc(foreignKey)+"/chat", m{"message": "intrude"}),
			wsC(boundToken, "chat.send", m{"sessionKey": foreignKey, "message": "intrude", "idempotencyKey": "bound-intrude-chat"}),
			wsC(boundToken, "agent", m{"sessionKey": foreignKey, "message": "intrude", "idempotencyKey": "bound-intrude-agent"}),
			na(sMCPHTTP, noMCPNative),
		}, noCLI...)},
		{finding: "2", name: "bound admin token: patch of another session refused", want: forbidden, cells: append([]cell{
			httpC(boundAdminToken, http.MethodPost, "/api/sessions/"+esc(foreignKey)+"/patch", m{"label": "stolen"}),
			wsC(boundAdminToken, "sessions.patch", m{"key": foreignKey, "label": "stolen"}),
			na(sMCPHTTP, noMCPNative),
		}, noCLI...)},
		{finding: "2", name: "bound admin token: delete of another session refused", want: forbidden, cells: append([]cell{
			httpC(boundAdminToken, http.MethodDelete, "/api/sessions/"+esc(foreignKey), nil),
			wsC(boundAdminToken, "sessions.delete", m{"key": foreignKey}),
			na(sMCPHTTP, noMCPNative),
		}, noCLI...)},
		{finding: "2", name: "bound token: history of another session refused", want: forbidden, cells: append([]cell{
			httpC(boundToken, http.MethodGet, "/api/sessions/"+esc(foreignKey)+"/history", nil),
			httpToolC(boundToken, "", "sessions_history", m{"sessionKey": foreignKey}),
			wsC(boundToken, "chat.history", m{"sessionKey": foreignKey}),
			wsToolC(boundToken, "", "sessions_history", m{"sessionKey": foreignKey}),
			mcpHTTPC(boundToken, "sessions_history", m{"sessionKey": foreignKey}),
		}, noCLI...)},
		{finding: "2", name: "bound token: spawn as another requester refused", want: forbidden, cells: append([]cell{
			httpC(boundToken, http.MethodPost, "/api/spawn", m{"task": "as someone else", "as": foreignKey}),
			httpToolC(boundToken, foreignKey, "sessions_spawn", m{"task": "as someone else"}),
			wsC(boundToken, "sessions.spawn", m{"task": "as someone else", "requesterSessionKey": foreignKey}),
			wsToolC(boundToken, foreignKey, "sessions_spawn", m{"task": "as someone else"}),
			na(sMCPHTTP, "MCP over HTTP has no way to name another requester (the token's session is the requester)"),
		}, noCLI...)},
		{finding: "2", name: "bound token: WS events of other sessions not received",
			want: outcome{OK: true, Fields: map[string]string{
				"operator got the foreign chat event":        "true",
				"bound got its own chat event":               "true",
				"bound got events of other agents' sessions": "0",
			}},
			cells: append([]cell{
				custom(sWS, "events", boundEvents),
				na(sHTTP, "HTTP has no events"),
				na(sMCPHTTP, "MCP carries no gateway events"),
			}, noCLI...)},
	}
}

// boundEvents connects an operator and a bound client (neither
// subscribes), has the operator chat into a foreign session, waits for the
// operator's chat event of it, then chats into the bound session and waits
// for the bound client's chat event of that: events reach a connection in
// order, so a foreign event the bound client was going to get has arrived
// by then.
func boundEvents(t *testing.T, w *world) outcome {
	ctx := deadline(t, 45*time.Second)
	op, err := dialWS(ctx, w.base, operatorToken)
	if err != nil {
		t.Fatalf("operator WS: %v", err)
	}
	defer op.close()
	bound, err := dialWS(ctx, w.base, boundToken)
	if err != nil {
		t.Fatalf("bound WS: %v", err)
	}
	defer bound.close()
	chatFinal := func(key string) func(wsFrame) bool {
		return func(e wsFrame) bool {
			return e.Event == "chat" && eventSession(e) == key && jsonPath(e.Payload, "state") == "final"
		}
	}
	fields := map[string]string{}
	w.chatHTTP(t, foreignKey, "private words")
	_, err = op.waitEvent(ctx, chatFinal(foreignKey))
	fields["operator got the foreign chat event"] = fmt.Sprint(err == nil)
	w.boundMu.Lock()
	w.chatHTTP(t, boundKey, "own words")
	_, err = bound.waitEvent(ctx, chatFinal(boundKey))
	w.boundMu.Unlock()
	fields["bound got its own chat event"] = fmt.Sprint(err == nil)
	foreign := bound.eventsMatching(func(e wsFrame) bool {
		k := eventSession(e)
		return k != "" && !strings.HasPrefix(k, "agent:guest:")
	})
	fields["bound got events of other agents' sessions"] = fmt.Sprint(len(foreign))
	var payload []string
	for _, e := range foreign {
		payload = append(payload, e.Event+" "+string(e.Payload))
	}
	return outcome{OK: true, Fields: fields, Payload: fmt.Sprint(payload)}
}
