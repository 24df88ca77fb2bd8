package gateway_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/gateway"
)

var chatPNG = append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 40)...)

// userFiles returns the text and the image blocks of the last user message
// of a session's chat.history.
func userFiles(t *testing.T, w *wsClient, key string) (string, []map[string]any) {
	t.Helper()
	var h struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	w.ok("chat.history", map[string]any{"sessionKey": key}, &h)
	for i := len(h.Messages) - 1; i >= 0; i-- {
		if h.Messages[i].Role != "user" {
			continue
		}
		var blocks []map[string]any
		if err := json.Unmarshal(h.Messages[i].Content, &blocks); err != nil {
			t.Fatalf("user content %s is not blocks: %v", h.Messages[i].Content, err)
		}
		var images []map[string]any
		text := ""
		for _, b := range blocks {
			switch b["type"] {
			case "text":
				text += b["text"].(string)
			case "image":
				images = append(images, b)
			}
		}
		return text, images
	}
	t.Fatalf("no user message in %s", key)
	return "", nil
}

// TestChatAttachments: chat.send and agent take OpenClaw's attachments
// (the Control UI's {type, mimeType, fileName, content}); the user message
// the model sees carries the image as an image block and each file as its
// note, and the transcript keeps them. An oversized file is refused naming
// the entry, the field and the limit, on WS and HTTP alike.
func TestChatAttachments(t *testing.T) {
	e := newEnv(t, envOptions{cfg: func(c *config.Config) {
		c.Tools.SessionsSpawn.Attachments.MaxFileBytes = 1 << 10
	}})
	w, _ := e.connect(t, nil)
	img := base64.StdEncoding.EncodeToString(chatPNG)

	var started struct{ RunID, Status string }
	w.ok("chat.send", map[string]any{"sessionKey": "main", "message": "what is this?", "idempotencyKey": "f1",
		"attachments": []any{map[string]any{"type": "image", "mimeType": "image/png", "fileName": "cat.png", "content": img},
			map[string]any{"type": "file", "mimeType": "text/plain", "fileName": "notes.txt", "content": base64.StdEncoding.EncodeToString([]byte("a note"))}}}, &started)
	if started.Status != "started" {
		t.Fatalf("chat.send = %+v", started)
	}
	w.ok("agent.wait", map[string]any{"runId": started.RunID, "timeoutMs": 10_000}, nil)
	text, images := userFiles(t, w, "main")
	if !strings.HasPrefix(text, "what is this?\n[media attached: 2 files]") || !strings.Contains(text, `cat.png (image/png) "cat.png"]`) ||
		!strings.Contains(text, `notes.txt (text/plain) "notes.txt"]`) {
		t.Errorf("user text = %q", text)
	}
	if len(images) != 1 || images[0]["mimeType"] != "image/png" || images[0]["data"] != img {
		t.Errorf("image blocks = %v", images)
	}

	// agent: a pasted image (a data URL) with no file name.
	id := w.send("agent", map[string]any{"sessionKey": "agent:main:pasted", "message": "look", "idempotencyKey": "f2",
		"attachments": []any{map[string]any{"type": "image", "mimeType": "image/png", "content": "data:image/png;base64," + img}}})
	if res := w.response(id); !res.OK {
		t.Fatalf("agent accepted = %s", res)
	}
	if res := w.response(id); !res.OK {
		t.Fatalf("agent final = %s", res)
	}
	if text, images := userFiles(t, w, "agent:main:pasted"); !strings.Contains(text, `image.png (image/png) "image.png"]`) || len(images) != 1 {
		t.Errorf("pasted: text %q, %d images", text, len(images))
	}

	big := base64.StdEncoding.EncodeToString(make([]byte, 2<<10))
	const want = "attachments[0].content: 2048 bytes is over maxFileBytes 1024 (tools.sessions_spawn.attachments.maxFileBytes)"
	for _, tc := range []struct{ method, prefix string }{{"chat.send", "invalid chat.send params: "}, {"agent", "invalid agent params: "}} {
		res := w.call(tc.method, map[string]any{"sessionKey": "main", "message": "big", "idempotencyKey": "big-" + tc.method,
			"attachments": []any{map[string]any{"type": "file", "fileName": "big.bin", "content": big}}})
		if res.OK || res.Error.Code != gateway.CodeInvalidRequest || res.Error.Message != tc.prefix+want {
			t.Errorf("%s oversized = %s, want %q", tc.method, res, tc.prefix+want)
		}
	}
	var refusal struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	if code := e.do(t, http.MethodPost, "/api/sessions/main/chat", map[string]any{"message": "big",
		"attachments": []any{map[string]any{"type": "file", "fileName": "big.bin", "content": big}}}, &refusal); code != http.StatusBadRequest ||
		refusal.Error.Message != "invalid chat params: "+want {
		t.Errorf("HTTP chat oversized = %d %+v", code, refusal)
	}
	// Nothing was started by the refusals.
	if text, _ := userFiles(t, w, "main"); strings.Contains(text, "big") {
		t.Errorf("a refused message reached the transcript: %q", text)
	}

	// The HTTP chat takes the same shape into the same path.
	var chat gateway.ChatResponse
	if code := e.do(t, http.MethodPost, "/api/sessions/agent:main:http/chat?wait=10s", map[string]any{"message": "over http",
		"attachments": []any{map[string]any{"type": "image", "mimeType": "image/png", "fileName": "cat.png", "content": img}}}, &chat); code != http.StatusOK {
		t.Fatalf("HTTP chat = %d", code)
	}
	if text, images := userFiles(t, w, "agent:main:http"); !strings.Contains(text, `cat.png (image/png) "cat.png"]`) || len(images) != 1 {
		t.Errorf("HTTP: text %q, %d images", text, len(images))
	}
}
