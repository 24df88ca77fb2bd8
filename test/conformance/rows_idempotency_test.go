package conformance

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
)

// idemCall makes one call of an idempotency cell as token with message
// msg and key; it returns the outcome (runId in the payload).
type idemCall func(t *testing.T, w *world, token, key, msg string) outcome

// The calls that take an idempotency key, by surface.
var idemCalls = []struct {
	s    surface
	via  string
	call idemCall
}{
	{sHTTP, "POST /api/sessions/{key}/send", func(t *testing.T, w *world, token, key, msg string) outcome {
		return w.httpOutcome(t, token, http.MethodPost, "/api/sessions/agent:main:idem-"+key+"/send", m{"message": msg, "timeoutSeconds": 0, "idempotencyKey": key})
	}},
	{sHTTP, "POST /api/sessions/{key}/chat", func(t *testing.T, w *world, token, key, msg string) outcome {
		return w.httpOutcome(t, token, http.MethodPost, "/api/sessions/agent:main:idem-"+key+"/chat", m{"message": msg, "idempotencyKey": key})
	}},
	{sHTTP, "POST /api/spawn", func(t *testing.T, w *world, token, key, msg string) outcome {
		return w.httpOutcome(t, token, http.MethodPost, "/api/spawn", m{"task": msg, "idempotencyKey": key})
	}},
	{sHTTP, "POST /api/tools/sessions_send", func(t *testing.T, w *world, token, key, msg string) outcome {
		return w.httpTool(t, token, "", "sessions_send", m{"sessionKey": "agent:main:idem-" + key, "message": msg, "timeoutSeconds": 0, "idempotencyKey": key})
	}},
	{sWS, "chat.send", func(t *testing.T, w *world, token, key, msg string) outcome {
		return w.wsOutcome(t, token, "chat.send", m{"sessionKey": "agent:main:idem-" + key, "message": msg, "idempotencyKey": key})
	}},
	{sWS, "sessions.spawn", func(t *testing.T, w *world, token, key, msg string) outcome {
		return w.wsOutcome(t, token, "sessions.spawn", m{"task": msg, "idempotencyKey": key})
	}},
	{sWS, "tools.invoke sessions_send", func(t *testing.T, w *world, token, key, msg string) outcome {
		return w.wsTool(t, token, "", "sessions_send", m{"sessionKey": "agent:main:idem-" + key, "message": msg, "timeoutSeconds": 0, "idempotencyKey": key})
	}},
	{sMCPHTTP, "sessions_send", func(t *testing.T, w *world, token, key, msg string) outcome {
		return w.mcpHTTPOutcome(t, token, "sessions_send", m{"sessionKey": "agent:main:idem-" + key, "message": msg, "timeoutSeconds": 0, "idempotencyKey": key})
	}},
	// The A2A messageId is the idempotency key; without a contextId the
	// context is derived from the caller and the messageId.
	{sA2A, "SendMessage", func(t *testing.T, w *world, token, key, msg string) outcome {
		return w.a2aOutcome(t, token, "main", "SendMessage", a2aMsg(key, "", msg))
	}},
}

// runIDOf is the run id of any answer that started one.
func runIDOf(o outcome) string { return firstOf([]byte(o.Payload), "runId", "run.runId") }

// idempotencyRows: keys are scoped to (principal, requester,
// operation); a reused key with other parameters is a conflict.
func idempotencyRows(_ *world) []row {
	var twoPrincipals, conflict, retry []cell
	for i, c := range idemCalls {
		c, n := c, i
		twoPrincipals = append(twoPrincipals, custom(c.s, c.via, func(t *testing.T, w *world) outcome {
			key := fmt.Sprintf("twop-%d", n)
			a := c.call(t, w, operatorToken, key, "same words")
			if !a.OK {
				return a
			}
			b := c.call(t, w, writeToken, key, "same words")
			if !b.OK {
				return b
			}
			ra, rb := runIDOf(a), runIDOf(b)
			return outcome{OK: true, Fields: map[string]string{"distinct runIds": fmt.Sprint(ra != "" && rb != "" && ra != rb)},
				Payload: "operator: " + a.Payload + "\nwriter: " + b.Payload}
		}))
		conflict = append(conflict, custom(c.s, c.via, func(t *testing.T, w *world) outcome {
			key := fmt.Sprintf("conf-%d", n)
			a := c.call(t, w, operatorToken, key, "first words")
			if !a.OK {
				a.Msg = "the first call failed: " + a.Msg
				return a
			}
			return c.call(t, w, operatorToken, key, "other words")
		}))
		retry = append(retry, custom(c.s, c.via, func(t *testing.T, w *world) outcome {
			key := fmt.Sprintf("retry-%d", n)
			a := c.call(t, w, operatorToken, key, "retried words")
			if !a.OK {
				return a
			}
			b := c.call(t, w, operatorToken, key, "retried words")
			if !b.OK {
				return b
			}
			ra, rb := runIDOf(a), runIDOf(b)
			return outcome{OK: true, Fields: map[string]string{"same runId": fmt.Sprint(ra != "" && ra == rb)},
				Payload: "first: " + a.Payload + "\nretry: " + b.Payload}
		}))
	}
	stdio := custom(sMCPStdio, "sessions_send", func(t *testing.T, w *world) outcome {
		args := func(msg string) m {
			return m{"sessionKey": "agent:main:idem-stdio", "message": msg, "timeoutSeconds": 0, "idempotencyKey": "conf-stdio"}
		}
		if a := w.mcpStdioOutcome(t, "", "sessions_send", args("first words")); !a.OK {
			a.Msg = "the first call failed: " + a.Msg
			return a
		}
		return w.mcpStdioOutcome(t, "", "sessions_send", args("other words"))
	})
	skips := []cell{na(sCLI, noCLIIdemKey), na(sCLIGW, noCLIIdemKey)}
	// Every chat surface is one operation (docs/design.md#principals-scopes-and-the-gate): a key first used
	// on WS `agent` names the same run on chat.send and on HTTP chat.
	agentThen := func(via string, again func(t *testing.T, w *world, key string) outcome) func(t *testing.T, w *world) outcome {
		return func(t *testing.T, w *world) outcome {
			key := "chat-surfaces-" + via
			a := w.wsOutcome(t, operatorToken, "agent", m{"sessionKey": "agent:main:idem-" + key, "message": "one chat", "idempotencyKey": key})
			if !a.OK {
				return a
			}
			b := again(t, w, key)
			if !b.OK {
				return b
			}
			ra, rb := runIDOf(a), runIDOf(b)
			return outcome{OK: true, Fields: map[string]string{"same runId": fmt.Sprint(ra != "" && ra == rb)},
				Payload: "agent: " + a.Payload + "\nagain: " + b.Payload}
		}
	}
	chatSurfaces := []cell{
		custom(sWS, "agent, then chat.send", agentThen("ws", func(t *testing.T, w *world, key string) outcome {
			return w.wsOutcome(t, operatorToken, "chat.send", m{"sessionKey": "agent:main:idem-" + key, "message": "one chat", "idempotencyKey": key})
		})),
		custom(sHTTP, "WS agent, then POST /api/sessions/{key}/chat", agentThen("http", func(t *testing.T, w *world, key string) outcome {
			return w.httpOutcome(t, operatorToken, http.MethodPost, "/api/sessions/agent:main:idem-"+key+"/chat", m{"message": "one chat", "idempotencyKey": key})
		})),
		na(sMCPStdio, noMCPNative), na(sMCPHTTP, noMCPNative), na(sA2A, "A2A keys are messageIds of its own contexts"),
	}
	return []row{
		{finding: "3", name: "a key used on agent names the same run on every chat surface",
			want:  outcome{OK: true, Fields: map[string]string{"same runId": "true"}},
			cells: append(chatSurfaces, skips...)},
		{finding: "3", name: "operator and write token reusing one key get two runs",
			want:  outcome{OK: true, Fields: map[string]string{"distinct runIds": "true"}},
			cells: append(append(twoPrincipals, na(sMCPStdio, stdioOnePerson)), skips...)},
		{finding: "3", name: "one principal reusing a key with another message gets a conflict",
			want:  outcome{Code: "conflict", Msg: "idempotency key reused with different parameters"},
			cells: append(append(conflict, stdio), skips...)},
		{finding: "3", name: "one principal retrying with the same parameters gets the same run",
			want:  outcome{OK: true, Fields: map[string]string{"same runId": "true"}},
			cells: append(append(retry, na(sMCPStdio, "covered by the MCP over HTTP cell: same handler")), skips...)},
	}
}

// idempotencyLimitRows: an idempotency key longer than
// api.IdempotencyKeyChars is refused by every call that takes one — the
// chat surfaces and the native send too, not only the tools.
func idempotencyLimitRows(_ *world) []row {
	long := strings.Repeat("k", int(api.IdempotencyKeyChars.Max)+1)
	var cells []cell
	for _, c := range idemCalls {
		cells = append(cells, custom(c.s, c.via, func(t *testing.T, w *world) outcome {
			return c.call(t, w, operatorToken, long, "a long key")
		}))
	}
	cells = append(cells,
		custom(sWS, "agent", func(t *testing.T, w *world) outcome {
			return w.wsOutcome(t, operatorToken, "agent", m{"sessionKey": "agent:main:idem-long", "message": "a long key", "idempotencyKey": long})
		}),
		custom(sWS, "send", func(t *testing.T, w *world) outcome {
			return w.wsOutcome(t, operatorToken, "send", m{"to": "agent:main:idem-long", "message": "a long key", "idempotencyKey": long})
		}),
		custom(sMCPStdio, "sessions_send", func(t *testing.T, w *world) outcome {
			return w.mcpStdioOutcome(t, "", "sessions_send", m{"sessionKey": "agent:main:idem-long", "message": "a long key", "timeoutSeconds": 0, "idempotencyKey": long})
		}),
		na(sCLI, noCLIIdemKey), na(sCLIGW, noCLIIdemKey))
	return []row{{finding: "3", name: fmt.Sprintf("an idempotencyKey over %d characters is refused", api.IdempotencyKeyChars.Max),
		want: outcome{Code: "invalid", Msg: "too long"}, cells: cells}}
}
