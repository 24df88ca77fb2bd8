package conformance

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// chatFilePNG is a PNG by its bytes: the model gets it as an image.
var chatFilePNG = append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 24)...)

// recordedFile reads a session's last user message (chat.history, raw) for
// what a file left in it: its note and the image blocks the model sees.
func recordedFile(t *testing.T, w *world, key string) map[string]string {
	o := w.wsOutcome(t, operatorToken, "chat.history", m{"sessionKey": key})
	if !o.OK {
		return map[string]string{"history": o.Msg}
	}
	var h struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal([]byte(o.Payload), &h) != nil {
		return map[string]string{"history": "unreadable"}
	}
	for i := len(h.Messages) - 1; i >= 0; i-- {
		if h.Messages[i].Role != "user" {
			continue
		}
		var blocks []struct{ Type, Text, MimeType, Data string }
		if json.Unmarshal(h.Messages[i].Content, &blocks) != nil {
			return map[string]string{"content": "text only"}
		}
		out := map[string]string{"note": "false", "images": "0"}
		n := 0
		for _, b := range blocks {
			switch b.Type {
			case "text":
				out["note"] = strconv.FormatBool(strings.Contains(b.Text, `/cat.png (image/png) "cat.png"]`))
			case "image":
				n++
				out["image"] = b.MimeType + " " + strconv.FormatBool(b.Data == base64.StdEncoding.EncodeToString(chatFilePNG))
			}
		}
		out["images"] = strconv.Itoa(n)
		return out
	}
	return map[string]string{"history": "no user message"}
}

// chatFileRows: chat.send, agent and the HTTP chat take a file in
// OpenClaw's shape into one path, and refuse an oversized one naming the
// field and the limit.
func chatFileRows(_ *world) []row {
	file := func() []any {
		return []any{m{"type": "image", "mimeType": "image/png", "fileName": "cat.png", "content": base64.StdEncoding.EncodeToString(chatFilePNG)}}
	}
	recorded := func(s surface, via string, chat func(t *testing.T, w *world, k string) outcome) cell {
		return custom(s, via, func(t *testing.T, w *world) outcome {
			k := "agent:main:chat-file-" + strings.Fields(via)[0]
			o := chat(t, w, k)
			if !o.OK {
				return o
			}
			o.Status = ""
			o.Fields = recordedFile(t, w, k)
			return o
		})
	}
	// One byte over the default maxFileBytes.
	big := []any{m{"type": "file", "fileName": "big.bin", "content": base64.StdEncoding.EncodeToString(make([]byte, 1<<20+1))}}
	const noCLIFiles = "chat has no file flag (send --file is a channel send)"
	noMCP := []cell{na(sMCPStdio, noMCPChat), na(sMCPHTTP, noMCPChat), na(sCLI, noCLIFiles), na(sCLIGW, noCLIFiles)}
	return []row{
		{finding: "params", name: "a chat message with a file is accepted and recorded the same on every chat surface",
			want: outcome{OK: true, Fields: map[string]string{"note": "true", "images": "1", "image": "image/png true"}},
			cells: append([]cell{
				recorded(sWS, "chat.send {attachments}", func(t *testing.T, w *world, k string) outcome {
					a := w.wsOutcome(t, operatorToken, "chat.send", m{"sessionKey": k, "message": "what is this?",
						"idempotencyKey": "chat-file-ws", "attachments": file()})
					if !a.OK {
						return a
					}
					return w.wsOutcome(t, operatorToken, "agent.wait", m{"runId": jsonPath([]byte(a.Payload), "runId"), "timeoutMs": 30000})
				}),
				recorded(sWS, "agent {attachments}", func(t *testing.T, w *world, k string) outcome {
					a := w.wsOutcome(t, operatorToken, "agent", m{"sessionKey": k, "message": "what is this?",
						"idempotencyKey": "chat-file-agent", "attachments": file()})
					if !a.OK {
						return a
					}
					return w.wsOutcome(t, operatorToken, "agent.wait", m{"runId": jsonPath([]byte(a.Payload), "runId"), "timeoutMs": 30000})
				}),
				recorded(sHTTP, "POST /api/sessions/{key}/chat {attachments}", func(t *testing.T, w *world, k string) outcome {
					return w.httpOutcome(t, operatorToken, http.MethodPost, "/api/sessions/"+esc(k)+"/chat?wait=30s",
						m{"message": "what is this?", "attachments": file()})
				}),
			}, noMCP...)},
		{finding: "params", name: "an oversized chat file is refused naming the field and the limit",
			want: outcome{Code: "invalid", Msg: "attachments[0].content: 1048577 bytes is over maxFileBytes 1048576 (tools.sessions_spawn.attachments.maxFileBytes)"},
			cells: append([]cell{
				wsC(operatorToken, "chat.send", m{"sessionKey": "agent:main:chat-file-big", "message": "big", "idempotencyKey": "chat-file-big", "attachments": big}),
				wsC(operatorToken, "agent", m{"sessionKey": "agent:main:chat-file-big", "message": "big", "idempotencyKey": "chat-file-big-agent", "attachments": big}),
				httpC(operatorToken, http.MethodPost, "/api/sessions/agent:main:chat-file-big/chat", m{"message": "big", "attachments": big}),
			}, noMCP...)},
	}
}
