package conformance

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// Rows of chat's `deliver` (OpenClaw's `agent
// {deliver: true}`) and the WS `send`'s required `to`.

const (
	noMCPChat  = "no tool posts a user message into a session"
	noMaxChars = "maxChars is OpenClaw's chat.history parameter; other history surfaces cap text as sessions_history does"
)

// deliveredReply reads an outbox listing ({items: […]}) for the delivery
// of runID's reply: whether there is one, and its channel, to and text.
func deliveredReply(b []byte, runID string) map[string]string {
	var list struct {
		Items []struct {
			Kind    string          `json:"kind"`
			RunID   string          `json:"runId"`
			Channel string          `json:"channel"`
			To      string          `json:"to"`
			Payload json.RawMessage `json:"payload"`
		} `json:"items"`
	}
	if json.Unmarshal(b, &list) != nil {
		return map[string]string{"reply delivered": "unreadable outbox"}
	}
	for _, it := range list.Items {
		if it.Kind == "delivery" && runID != "" && it.RunID == runID {
			return map[string]string{"reply delivered": "true", "channel": it.Channel, "to": it.To,
				"text": jsonPath(it.Payload, "text")}
		}
	}
	return map[string]string{"reply delivered": "false"}
}

// outboxOf lists the outbox a surface's chats write to: the in-process
// state dir's for the CLI without a gateway, else the gateway's (session k).
func outboxOf(t *testing.T, w *world, s surface, k string) []byte {
	if s == sCLI {
		r := w.cli(t, w.inproc, "outbox", "list", "--limit", "1000", "--json")
		if !r.ok {
			t.Fatalf("outbox list: %s", r.msg)
		}
		return []byte(r.stdout)
	}
	st, b := w.httpDo(t, operatorToken, http.MethodGet, "/api/outbox?session="+url.QueryEscape(k), nil)
	if st != http.StatusOK {
		t.Fatalf("GET /api/outbox: %d %s", st, b)
	}
	return b
}

// chatDeliverRows: a chat with deliver:true queues its reply in the outbox
// to the channel and recipient it names, on every chat surface; without
// an external channel it is refused (OpenClaw's `delivery channel is
// required`), unless best effort.
func chatDeliverRows(_ *world) []row {
	noMCP := []cell{na(sMCPStdio, noMCPChat), na(sMCPHTTP, noMCPChat)}
	key := func(via string) string { return "agent:main:telegram:group:deliver-" + via }
	delivered := func(s surface, via string, chat func(t *testing.T, w *world, k string) (outcome, string)) cell {
		return custom(s, via, func(t *testing.T, w *world) outcome {
			k := key(string(s))
			if strings.HasPrefix(via, "chat.send") {
				k += "-chat-send"
			}
			o, runID := chat(t, w, k)
			if !o.OK {
				return o
			}
			o.Status = ""
			o.Fields = deliveredReply(outboxOf(t, w, s, k), runID)
			return o
		})
	}
	body := m{"message": "ship it", "channel": "telegram", "to": "42", "deliver": true}
	refused := m{"message": "nowhere to go", "deliver": true}
	return []row{
		{finding: "deliver", name: "chat with deliver queues the reply for the channel and recipient",
			want: outcome{OK: true, Fields: map[string]string{"reply delivered": "true", "channel": "telegram", "to": "42",
				"text": "echo: ship it"}},
			cells: append([]cell{
				delivered(sWS, "agent {deliver}", func(t *testing.T, w *world, k string) (outcome, string) {
					p := m{"sessionKey": k, "idempotencyKey": "deliver-ws"}
					for f, v := range body {
						p[f] = v
					}
					a := w.wsOutcome(t, operatorToken, "agent", p)
					runID := jsonPath([]byte(a.Payload), "runId")
					if !a.OK {
						return a, ""
					}
					return w.wsOutcome(t, operatorToken, "agent.wait", m{"runId": runID, "timeoutMs": 30000}), runID
				}),
				delivered(sWS, "chat.send {originatingChannel, originatingTo, deliver}", func(t *testing.T, w *world, k string) (outcome, string) {
					a := w.wsOutcome(t, operatorToken, "chat.send", m{"sessionKey": k, "message": "ship it", "originatingChannel": "telegram",
						"originatingTo": "42", "deliver": true, "idempotencyKey": "deliver-chat-send"})
					runID := jsonPath([]byte(a.Payload), "runId")
					if !a.OK {
						return a, ""
					}
					return w.wsOutcome(t, operatorToken, "agent.wait", m{"runId": runID, "timeoutMs": 30000}), runID
				}),
				delivered(sHTTP, "POST /api/sessions/{key}/chat {deliver}", func(t *testing.T, w *world, k string) (outcome, string) {
					o := w.httpOutcome(t, operatorToken, http.MethodPost, "/api/sessions/"+esc(k)+"/chat?wait=30s", body)
					return o, jsonPath([]byte(o.Payload), "run.runId")
				}),
				delivered(sCLI, "chat --deliver", func(t *testing.T, w *world, k string) (outcome, string) {
					o := w.cliOutcome(t, sCLI, "chat", k, "ship it", "--channel", "telegram", "--to", "42", "--deliver")
					return o, jsonPath([]byte(o.Payload), "runId")
				}),
				delivered(sCLIGW, "chat --deliver", func(t *testing.T, w *world, k string) (outcome, string) {
					o := w.cliOutcome(t, sCLIGW, "chat", k, "ship it", "--channel", "telegram", "--to", "42", "--deliver")
					return o, jsonPath([]byte(o.Payload), "runId")
				}),
			}, noMCP...)},
		{finding: "deliver", name: "chat with deliver and no external channel is refused",
			want: outcome{Code: "invalid", Msg: "delivery channel is required"},
			cells: append([]cell{
				wsC(operatorToken, "agent", m{"sessionKey": "agent:main:deliver-none-ws", "message": "nowhere to go", "deliver": true}),
				httpC(operatorToken, http.MethodPost, "/api/sessions/agent:main:deliver-none-http/chat", refused),
				cliC(sCLI, "chat", "agent:main:deliver-none-cli", "nowhere to go", "--deliver"),
				cliC(sCLIGW, "chat", "agent:main:deliver-none-cligw", "nowhere to go", "--deliver"),
			}, noMCP...)},
		{finding: "deliver", name: "chat with best-effort deliver and no external channel runs without a delivery",
			want: outcome{OK: true, Fields: map[string]string{"reply delivered": "false"}},
			cells: append([]cell{
				delivered(sWS, "agent {deliver, bestEffortDeliver}", func(t *testing.T, w *world, k string) (outcome, string) {
					a := w.wsOutcome(t, operatorToken, "agent", m{"sessionKey": "agent:main:deliver-best-ws", "message": "x", "deliver": true, "bestEffortDeliver": true})
					runID := jsonPath([]byte(a.Payload), "runId")
					if !a.OK {
						return a, ""
					}
					return w.wsOutcome(t, operatorToken, "agent.wait", m{"runId": runID, "timeoutMs": 30000}), runID
				}),
				delivered(sHTTP, "POST /api/sessions/{key}/chat {deliver, bestEffortDeliver}", func(t *testing.T, w *world, k string) (outcome, string) {
					o := w.httpOutcome(t, operatorToken, http.MethodPost, "/api/sessions/agent:main:deliver-best-http/chat?wait=30s",
						m{"message": "x", "deliver": true, "bestEffortDeliver": true})
					return o, jsonPath([]byte(o.Payload), "run.runId")
				}),
				delivered(sCLI, "chat --deliver --best-effort-deliver", func(t *testing.T, w *world, k string) (outcome, string) {
					o := w.cliOutcome(t, sCLI, "chat", "agent:main:deliver-best-cli", "x", "--deliver", "--best-effort-deliver")
					return o, jsonPath([]byte(o.Payload), "runId")
				}),
				delivered(sCLIGW, "chat --deliver --best-effort-deliver", func(t *testing.T, w *world, k string) (outcome, string) {
					o := w.cliOutcome(t, sCLIGW, "chat", "agent:main:deliver-best-cligw", "x", "--deliver", "--best-effort-deliver")
					return o, jsonPath([]byte(o.Payload), "runId")
				}),
			}, noMCP...)},
		{finding: "deliver", name: "chat.history maxChars cuts each text field",
			want: outcome{OK: true, Fields: map[string]string{"user text": "0123456789\n…(truncated)…"}},
			cells: []cell{
				custom(sWS, "agent, then chat.history {maxChars}", func(t *testing.T, w *world) outcome {
					k := "agent:main:maxchars-ws"
					a := w.wsOutcome(t, operatorToken, "agent", m{"sessionKey": k, "message": "0123456789abcdefghij", "idempotencyKey": "maxchars-ws"})
					if !a.OK {
						return a
					}
					if o := w.wsOutcome(t, operatorToken, "agent.wait", m{"runId": jsonPath([]byte(a.Payload), "runId"), "timeoutMs": 30000}); !o.OK {
						return o
					}
					o := w.wsOutcome(t, operatorToken, "chat.history", m{"sessionKey": k, "maxChars": 10})
					var h struct {
						Messages []struct {
							Role    string `json:"role"`
							Content any    `json:"content"`
						} `json:"messages"`
					}
					_ = json.Unmarshal([]byte(o.Payload), &h)
					o.Fields = map[string]string{"user text": "no user message"}
					for _, msg := range h.Messages {
						if s, ok := msg.Content.(string); ok && msg.Role == "user" {
							o.Fields["user text"] = s
						}
					}
					return o
				}),
				na(sHTTP, noMaxChars), na(sCLI, noMaxChars), na(sCLIGW, noMaxChars),
				na(sMCPStdio, noMaxChars), na(sMCPHTTP, noMaxChars),
			}},
		{finding: "deliver", name: "chat.history refuses a negative maxChars, naming it",
			want: outcome{Code: "invalid", Msg: "maxChars must be at least 1"},
			cells: []cell{
				openclawWords(wsC(operatorToken, "chat.history", m{"sessionKey": "main", "maxChars": -1}), "invalid chat.history params: at /maxChars: must be >= 1"),
				na(sHTTP, noMaxChars), na(sCLI, noMaxChars), na(sCLIGW, noMaxChars),
				na(sMCPStdio, noMaxChars), na(sMCPHTTP, noMaxChars),
			}},
		{finding: "deliver", name: "sessions patch refuses an unknown verboseLevel",
			want: outcome{Code: "invalid", Msg: "invalid verboseLevel (use off|on|full)"},
			cells: []cell{
				httpC(operatorToken, http.MethodPost, "/api/sessions/agent:main:verbose-http/patch", m{"verboseLevel": "loud"}),
				wsC(operatorToken, "sessions.patch", m{"key": "agent:main:verbose-ws", "verboseLevel": "loud"}),
				na(sCLI, "sessions patch has no verbose flag"), na(sCLIGW, "sessions patch has no verbose flag"),
				na(sMCPStdio, noMCPNative), na(sMCPHTTP, noMCPNative),
			}},
		{finding: "deliver", name: "deliver (WS send) needs to",
			want: outcome{Code: "invalid", Msg: "to required"},
			cells: []cell{
				httpC(operatorToken, http.MethodPost, "/api/send", m{"message": "to nobody", "sessionKey": "agent:main:deliver-no-to"}),
				openclawWords(wsC(operatorToken, "send", m{"message": "to nobody", "sessionKey": "agent:main:deliver-no-to"}), "invalid send params: must have required property 'to'"),
				na(sCLI, noCLIDeliver), na(sCLIGW, noCLIDeliver), na(sMCPStdio, noMCPOutbox), na(sMCPHTTP, noMCPOutbox),
			}},
	}
}
