package conformance

import (
	"net/http"
)

// Rows of acceptance trial 4: contract gaps a new user met.

const noCLIAttachEntry = "spawn --attach reads files, so every entry has content"

// trial4Rows are the rows of trial 4.
func trial4Rows(_ *world) []row {
	noContent := m{"task": "read the files", "attachments": []any{
		m{"name": "a.txt", "content": "hi"}, m{"name": "b.txt"}}}
	badContent := m{"task": "read the files", "attachments": []any{
		m{"name": "a.txt", "content": "hi"}, m{"name": "b.txt", "content": 5}}}
	send := m{"sessionKey": "agent:main:types-send", "message": "x", "timeoutSeconds": "soon"}
	chatNoContent := []any{m{"content": "aGk="}, m{"mimeType": "image/png", "fileName": "b.png"}}
	return []row{
		{finding: "trial4", name: "a spawn attachment entry without content is refused naming its index",
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
		{finding: "trial4", name: "a chat attachment entry without content is refused naming its index",
			want: outcome{Code: "invalid", Msg: "attachments[1].content required"},
			cells: []cell{
				wsC(operatorToken, "chat.send", m{"sessionKey": "agent:main:attach-ws", "message": "see file", "attachments": chatNoContent}),
				wsC(operatorToken, "agent", m{"sessionKey": "agent:main:attach-ws", "message": "see file", "attachments": chatNoContent}),
				httpC(operatorToken, http.MethodPost, "/api/sessions/agent:main:attach-http/chat", m{"message": "see file", "attachments": chatNoContent}),
				na(sCLI, "chat has no attachments flag"), na(sCLIGW, "chat has no attachments flag"),
				na(sMCPStdio, noMCPChat), na(sMCPHTTP, noMCPChat),
			}},
		{finding: "trial4", name: "a chat attachment is refused, never dropped",
			want: outcome{Code: "invalid", Msg: "attachments are not supported"},
			cells: []cell{
				wsC(operatorToken, "chat.send", m{"sessionKey": "agent:main:attach-ws", "message": "see file", "attachments": chatNoContent[:1]}),
				wsC(operatorToken, "agent", m{"sessionKey": "agent:main:attach-ws", "message": "see file", "attachments": chatNoContent[:1]}),
				httpC(operatorToken, http.MethodPost, "/api/sessions/agent:main:attach-http/chat", m{"message": "see file", "attachments": chatNoContent[:1]}),
				na(sCLI, "chat has no attachments flag"), na(sCLIGW, "chat has no attachments flag"),
				na(sMCPStdio, noMCPChat), na(sMCPHTTP, noMCPChat),
			}},
		{finding: "trial4", name: "a number parameter given a string is refused naming it and its JSON type",
			want: outcome{Code: "invalid", Msg: "limit must be a number (got a string)"},
			cells: []cell{
				na(sCLI, "the CLI reads flags, not JSON"), na(sCLIGW, "the CLI reads flags, not JSON"),
				httpToolC(operatorToken, "", "sessions_list", m{"limit": "ten"}),
				wsC(operatorToken, "sessions.list", m{"limit": "ten"}),
				wsToolC(operatorToken, "", "sessions_list", m{"limit": "ten"}),
				stdioC("", "sessions_list", m{"limit": "ten"}),
				mcpHTTPC(operatorToken, "sessions_list", m{"limit": "ten"}),
			}},
		{finding: "trial4", name: "an entry's field of the wrong type is named with its index",
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
		{finding: "trial4", name: "a body field of the wrong type is named in words",
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
