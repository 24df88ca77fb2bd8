package conformance

import "net/http"

// nulTextRows (docs/reliability.md, "Hostile callers"): a text parameter holding
// U+0000 is refused as invalid on every surface, with OpenClaw's chat.send
// words. PostgreSQL cannot store it, so it used to pass on SQLite and be a
// 500 `internal error` there.
func nulTextRows(_ *world) []row {
	const key = "agent:main:nul-text"
	const text = "before\x00after"
	noArgv := "a command-line argument cannot hold U+0000"
	send := m{"sessionKey": key, "message": text, "timeoutSeconds": 0}
	spawn := m{"task": text}
	return []row{
		{finding: "nul", name: "a message with a NUL byte is refused",
			want:       outcome{Code: "invalid", Msg: "message must not contain null bytes"},
			sameFields: []string{"Msg"},
			cells: []cell{
				httpSendC(operatorToken, key, m{"message": text}),
				httpC(operatorToken, http.MethodPost, "/api/sessions/"+esc(key)+"/chat", m{"message": text}),
				httpToolC(operatorToken, "", "sessions_send", send),
				wsC(operatorToken, "chat.send", m{"sessionKey": key, "message": text, "idempotencyKey": "nul-text"}),
				wsToolC(operatorToken, "", "sessions_send", send),
				stdioC("", "sessions_send", send),
				mcpHTTPC(operatorToken, "sessions_send", send),
				na(sCLI, noArgv), na(sCLIGW, noArgv),
			}},
		{finding: "nul", name: "a spawn task with a NUL byte is refused",
			want:       outcome{Code: "invalid", Msg: "task must not contain null bytes"},
			sameFields: []string{"Msg"},
			cells: []cell{
				httpC(operatorToken, http.MethodPost, "/api/spawn", spawn),
				httpToolC(operatorToken, "", "sessions_spawn", spawn),
				wsC(operatorToken, "sessions.spawn", spawn),
				wsToolC(operatorToken, "", "sessions_spawn", spawn),
				stdioC("", "sessions_spawn", spawn),
				mcpHTTPC(operatorToken, "sessions_spawn", spawn),
				na(sCLI, noArgv), na(sCLIGW, noArgv),
			}},
	}
}
