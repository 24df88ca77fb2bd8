package conformance

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// Rows of parameters and lookups: refused one way on every surface.

const noCLIAttachEntry = "spawn --attach reads files, so every entry has content"

// announcedTo reads an outbox listing for the announce posted to key: its
// channel and recipient.
func announcedTo(b []byte, key string) map[string]string {
	var list struct {
		Items []struct {
			Kind       string `json:"kind"`
			SessionKey string `json:"sessionKey"`
			Channel    string `json:"channel"`
			To         string `json:"to"`
		} `json:"items"`
	}
	if json.Unmarshal(b, &list) != nil {
		return map[string]string{"announce": "unreadable outbox"}
	}
	for _, it := range list.Items {
		if it.Kind == "announce" && it.SessionKey == key {
			return map[string]string{"announce": "queued", "channel": it.Channel, "to": it.To}
		}
	}
	return map[string]string{"announce": "none"}
}

// announceCell gives target key (announce-to-<surface>) a telegram
// recipient, sends to it on surface s and reads where its announce goes.
func announceCell(s surface, via string, send func(t *testing.T, w *world, key string) outcome) cell {
	return custom(s, via, func(t *testing.T, w *world) outcome {
		key := "agent:main:announce-to-" + string(s)
		if s == sCLI {
			if r := w.cli(t, w.inproc, "chat", key, "hello", "--channel", "telegram", "--to", "42"); !r.ok {
				return fromCLI(r.exit, r.stdout, r.msg)
			}
		} else {
			w.seedOK(t, http.MethodPost, "/api/sessions/"+esc(key)+"/chat?wait=30s", m{"message": "hello", "channel": "telegram", "to": "42"})
		}
		o := send(t, w, key)
		if !o.OK {
			return o
		}
		o.Status = ""
		o.Fields = announcedTo(outboxOf(t, w, s, key), key)
		return o
	})
}

// upperMainSID is the served main session's sessionId in upper case.
func upperMainSID(w *world) string { return strings.ToUpper(w.ids.mainSID) }

// toolCellsWithRef are a tool's cells on every tool surface with args
// computed when the cell runs (sessionKey: the reference).
func toolCellsWithRef(tool string, r ref, args func(ref string) m) []cell {
	return []cell{
		refCell(sHTTP, "POST /api/tools/"+tool, r, func(t *testing.T, w *world, ref string) outcome {
			return w.httpTool(t, operatorToken, "", tool, args(ref))
		}),
		refCell(sWS, "tools.invoke "+tool, r, func(t *testing.T, w *world, ref string) outcome {
			return w.wsTool(t, operatorToken, "", tool, args(ref))
		}),
		refCell(sMCPHTTP, tool, r, func(t *testing.T, w *world, ref string) outcome {
			return w.mcpHTTPOutcome(t, operatorToken, tool, args(ref))
		}),
		refCell(sMCPStdio, tool, r, func(t *testing.T, w *world, ref string) outcome {
			return w.mcpStdioOutcome(t, "", tool, args(ref))
		}),
	}
}

// messagesPerRow reads a list payload: the most messages any row carries.
func messagesPerRow(p []byte) map[string]string {
	var l struct {
		Sessions []struct {
			Messages []json.RawMessage `json:"messages"`
		} `json:"sessions"`
	}
	if json.Unmarshal(p, &l) != nil || len(l.Sessions) == 0 {
		return map[string]string{"most messages in a row": "no rows"}
	}
	most := 0
	for _, r := range l.Sessions {
		most = max(most, len(r.Messages))
	}
	return map[string]string{"most messages in a row": strconv.Itoa(most)}
}

// cronRunKey is a cron run's session, which no listing shows.
const cronRunKey = "agent:main:cron:conformance:run:r1"

// cronListed reads a list payload: whether the cron run's session and the
// seeded job session are listed.
func cronListed(p []byte) map[string]string {
	var l struct {
		Sessions []struct {
			Key string `json:"key"`
		} `json:"sessions"`
	}
	_ = json.Unmarshal(p, &l)
	run, job := false, false
	for _, r := range l.Sessions {
		run = run || r.Key == cronRunKey
		job = job || r.Key == "agent:main:cron:conformance"
	}
	return map[string]string{"cron run listed": strconv.FormatBool(run), "cron job listed": strconv.FormatBool(job)}
}

// cronSeeded seeds the cron run's and the job's sessions on the served
// state dir, then makes call.
func cronSeeded(s surface, via string, call func(t *testing.T, w *world) outcome) cell {
	return custom(s, via, func(t *testing.T, w *world) outcome {
		w.chatHTTP(t, cronRunKey, "nightly run")
		w.chatHTTP(t, "agent:main:cron:conformance", "the job")
		return call(t, w)
	})
}

// paramsRows: parameters refused in one way on every surface, naming the
// parameter, its index and its JSON type.
func paramsRows(_ *world) []row {
	noContent := m{"task": "read the files", "attachments": []any{
		m{"name": "a.txt", "content": "hi"}, m{"name": "b.txt"}}}
	badContent := m{"task": "read the files", "attachments": []any{
		m{"name": "a.txt", "content": "hi"}, m{"name": "b.txt", "content": 5}}}
	send := m{"sessionKey": "agent:main:types-send", "message": "x", "timeoutSeconds": "soon"}
	chatNoContent := []any{m{"content": "aGk="}, m{"mimeType": "image/png", "fileName": "b.png"}}
	noCLISID := []cell{na(sCLI, "the in-process state dir has other sessionIds"), na(sCLIGW, noCLIResolve)}
	status := m{"sessionKey": "agent:beta:main"}
	list := m{"messageLimit": 1, "limit": 5}
	return []row{
		{finding: "params", name: "an empty idempotencyKey on a chat surface is refused",
			want: outcome{Code: "invalid", Msg: "idempotencyKey must not be empty"},
			cells: []cell{
				openclawWords(wsC(operatorToken, "agent", m{"sessionKey": "agent:main:idem-empty", "message": "x", "idempotencyKey": ""}),
					"invalid agent params: at /idempotencyKey: must not have fewer than 1 characters"),
				openclawWords(wsC(operatorToken, "chat.send", m{"sessionKey": "agent:main:idem-empty", "message": "x", "idempotencyKey": ""}),
					"invalid chat.send params: at /idempotencyKey: must not have fewer than 1 characters"),
				httpC(operatorToken, http.MethodPost, "/api/sessions/agent:main:idem-empty/chat", m{"message": "x", "idempotencyKey": ""}),
				na(sCLI, noCLIIdemKey), na(sCLIGW, noCLIIdemKey), na(sMCPStdio, noMCPChat), na(sMCPHTTP, noMCPChat),
			}},
		{finding: "params", name: "listings leave out cron run sessions",
			want:   outcome{OK: true, Fields: map[string]string{"cron run listed": "false", "cron job listed": "true"}},
			fields: cronListed,
			cells: []cell{
				cronSeeded(sHTTP, "GET /api/sessions", func(t *testing.T, w *world) outcome {
					return w.httpOutcome(t, operatorToken, http.MethodGet, "/api/sessions?limit=50", nil)
				}),
				cronSeeded(sWS, "sessions.list", func(t *testing.T, w *world) outcome {
					return w.wsOutcome(t, operatorToken, "sessions.list", m{"limit": 50})
				}),
				cronSeeded(sMCPHTTP, "sessions_list", func(t *testing.T, w *world) outcome {
					return w.mcpHTTPOutcome(t, operatorToken, "sessions_list", m{"limit": 50})
				}),
				cronSeeded(sMCPStdio, "sessions_list", func(t *testing.T, w *world) outcome {
					return w.mcpStdioOutcome(t, "", "sessions_list", m{"limit": 50})
				}),
				cronSeeded(sCLIGW, "sessions list --json", func(t *testing.T, w *world) outcome {
					return w.cliOutcome(t, sCLIGW, "sessions", "list", "--limit", "50", "--json")
				}),
				na(sCLI, "the CLI-through-gateway cell lists the seeded state dir"),
			}},
		{finding: "params", name: "sessions list takes messageLimit under the tool's name on every surface",
			want: outcome{OK: true, Fields: map[string]string{"most messages in a row": "1"}}, fields: messagesPerRow,
			cells: []cell{
				httpC(operatorToken, http.MethodGet, "/api/sessions?messageLimit=1&limit=5&agentId=main", nil),
				httpToolC(operatorToken, "", "sessions_list", list),
				wsToolC(operatorToken, "", "sessions_list", list),
				stdioC("", "sessions_list", list),
				mcpHTTPC(operatorToken, "sessions_list", list),
				cliC(sCLIGW, "sessions", "list", "--messages", "1", "--limit", "5", "--agent", "main", "--json"),
				na(sCLI, "the in-process state dir's sessions are the CLI-through-gateway cell's twin"),
			}},
		{finding: "params", name: "GET /api/sessions refuses an unknown or malformed parameter, naming it",
			want: outcome{Code: "invalid", Msg: "invalid query parameter messageLimit"},
			cells: []cell{
				httpC(operatorToken, http.MethodGet, "/api/sessions?messageLimit=lots", nil),
				na(sWS, "WS params are JSON: the type-error rows cover them"), na(sCLI, "the CLI reads flags"), na(sCLIGW, "the CLI reads flags"),
				na(sMCPStdio, "MCP arguments are JSON: the type-error rows cover them"), na(sMCPHTTP, "MCP arguments are JSON: the type-error rows cover them"),
			}},
		{finding: "params", name: "session_status of another agent's session is refused in OpenClaw's words",
			want: outcome{Code: "forbidden", Msg: "Session status visibility is restricted. Set tools.sessions.visibility=all to allow cross-agent access."},
			cells: []cell{
				cliC(sCLI, "sessions", "status", "agent:beta:main", "--as", "agent:main:main"),
				cliC(sCLIGW, "sessions", "status", "agent:beta:main", "--as", "agent:main:main"),
				httpToolC(operatorToken, "agent:main:main", "session_status", status),
				wsToolC(operatorToken, "agent:main:main", "session_status", status),
				stdioC("agent:main:main", "session_status", status),
				mcpHTTPC(boundToken, "session_status", status),
			}},
		{finding: "params", name: "sessions.resolve finds a sessionId given in upper case",
			want: outcome{OK: true, Fields: map[string]string{"key": "agent:main:main"}}, fields: keyField,
			cells: append([]cell{
				refCell(sHTTP, "GET /api/sessions/resolve?sessionId=UPPER", upperMainSID, resolveHTTP(operatorToken, "", "sessionId")),
				refCell(sWS, "sessions.resolve {sessionId: UPPER}", upperMainSID, resolveWS(operatorToken, "sessionId")),
				na(sMCPStdio, noMCPNative), na(sMCPHTTP, noMCPNative),
			}, noCLISID...)},
		{finding: "params", name: "sessions_history finds a sessionId given in upper case",
			want:   outcome{OK: true, Fields: map[string]string{"sessionKey": "main"}},
			fields: func(p []byte) map[string]string { return map[string]string{"sessionKey": jsonPath(p, "sessionKey")} },
			cells: append(toolCellsWithRef("sessions_history", upperMainSID, func(ref string) m { return m{"sessionKey": ref, "limit": 1} }),
				noCLISID...)},
		{finding: "params", name: "a sessions_send announce is posted to the target's recipient on its channel",
			want: outcome{OK: true, Fields: map[string]string{"announce": "queued", "channel": "telegram", "to": "42"}},
			cells: []cell{
				announceCell(sCLI, "chat --channel telegram --to 42; send; outbox list", func(t *testing.T, w *world, key string) outcome {
					// In-process, send waits for the announce before it exits.
					r := w.cli(t, w.inproc, "send", key, "hello target", "--json")
					return fromCLI(r.exit, r.stdout, r.msg)
				}),
				announceCell(sHTTP, "POST /api/sessions/{key}/send", func(t *testing.T, w *world, key string) outcome {
					return settled(t, w, key, func() outcome {
						return w.httpOutcome(t, operatorToken, http.MethodPost, "/api/sessions/"+esc(key)+"/send", m{"message": "hello target", "timeoutSeconds": 30})
					})
				}),
				announceCell(sWS, "tools.invoke sessions_send", func(t *testing.T, w *world, key string) outcome {
					return settled(t, w, key, func() outcome {
						return w.wsTool(t, operatorToken, "", "sessions_send", m{"sessionKey": key, "message": "hello target", "timeoutSeconds": 30})
					})
				}),
				announceCell(sMCPStdio, "sessions_send", func(t *testing.T, w *world, key string) outcome {
					return settled(t, w, key, func() outcome {
						return w.mcpStdioOutcome(t, "", "sessions_send", m{"sessionKey": key, "message": "hello target", "timeoutSeconds": 30})
					})
				}),
				na(sCLIGW, "the send is the gateway's: the HTTP cell covers it"),
				na(sMCPHTTP, "the send is the gateway's: the MCP stdio cell covers it"),
			}},
		{finding: "params", name: "a spawn attachment entry without content is refused naming its index",
			want: outcome{Code: "invalid", Msg: "attachments[1].content required"},
			cells: []cell{
				na(sCLI, noCLIAttachEntry), na(sCLIGW, noCLIAttachEntry),
				httpC(operatorToken, http.MethodPost, "/api/spawn", noContent),
				httpToolC(operatorToken, "", "sessions_spawn", noContent),
				wsC(operatorToken, "sessions.spawn", noContent),
				wsToolC(operatorToken, "", "sessions_spawn", noContent),
				stdioC("", "sessions_spawn", noContent),
				mcpHTTPC(operatorToken, "sessions_spawn", noContent),
			}},
		{finding: "params", name: "a chat attachment entry without content is refused naming its index",
			want: outcome{Code: "invalid", Msg: "attachments[1].content required"},
			cells: []cell{
				wsC(operatorToken, "chat.send", m{"sessionKey": "agent:main:attach-ws", "message": "see file", "attachments": chatNoContent}),
				wsC(operatorToken, "agent", m{"sessionKey": "agent:main:attach-ws", "message": "see file", "attachments": chatNoContent}),
				httpC(operatorToken, http.MethodPost, "/api/sessions/agent:main:attach-http/chat", m{"message": "see file", "attachments": chatNoContent}),
				na(sCLI, "chat has no attachments flag"), na(sCLIGW, "chat has no attachments flag"),
				na(sMCPStdio, noMCPChat), na(sMCPHTTP, noMCPChat),
			}},
		{finding: "params", name: "a number parameter given a string is refused naming it and its JSON type",
			want: outcome{Code: "invalid", Msg: "limit must be a number (got a string)"},
			cells: []cell{
				na(sCLI, "the CLI reads flags, not JSON"), na(sCLIGW, "the CLI reads flags, not JSON"),
				httpToolC(operatorToken, "", "sessions_list", m{"limit": "ten"}),
				openclawWords(wsC(operatorToken, "sessions.list", m{"limit": "ten"}), "invalid sessions.list params: at /limit: must be integer"),
				wsToolC(operatorToken, "", "sessions_list", m{"limit": "ten"}),
				stdioC("", "sessions_list", m{"limit": "ten"}),
				mcpHTTPC(operatorToken, "sessions_list", m{"limit": "ten"}),
			}},
		{finding: "params", name: "an entry's field of the wrong type is named with its index",
			want: outcome{Code: "invalid", Msg: "attachments[1].content must be a string"},
			cells: []cell{
				na(sCLI, noCLIAttachEntry), na(sCLIGW, noCLIAttachEntry),
				httpC(operatorToken, http.MethodPost, "/api/spawn", badContent),
				httpToolC(operatorToken, "", "sessions_spawn", badContent),
				wsC(operatorToken, "sessions.spawn", badContent),
				wsToolC(operatorToken, "", "sessions_spawn", badContent),
				stdioC("", "sessions_spawn", badContent),
				mcpHTTPC(operatorToken, "sessions_spawn", badContent),
			}},
		{finding: "params", name: "a body field of the wrong type is named in words",
			want: outcome{Code: "invalid", Msg: "timeoutSeconds must be a number (got a string)"},
			cells: []cell{
				httpC(operatorToken, http.MethodPost, "/api/sessions/agent:main:types-http/chat", m{"message": "x", "timeoutSeconds": "soon"}),
				httpToolC(operatorToken, "", "sessions_send", send),
				wsToolC(operatorToken, "", "sessions_send", send),
				stdioC("", "sessions_send", send),
				mcpHTTPC(operatorToken, "sessions_send", send),
				na(sCLI, "the CLI reads flags, not JSON"), na(sCLIGW, "the CLI reads flags, not JSON"),
			}},
	}
}
