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
	}
}
