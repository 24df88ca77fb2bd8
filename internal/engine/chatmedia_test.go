package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/attachments"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// A chat message with files: the files land in the agent's workspace, the
// user message holds the caption, a note per file and the image as an
// image block, and sessions_history shows the image as a placeholder.
func TestChatAttachments(t *testing.T) {
	h := newHarness(t, nil, nil)
	png := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 64)...)
	res, err := h.e.chat(context.Background(), api.ChatRequest{SessionKey: "main", Message: "", Attachments: []attachments.File{
		{Name: "cat.png", MimeType: "image/png", Data: png},
		{Name: "notes.txt", MimeType: "text/plain", Data: []byte("remember the milk")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := h.e.waitRun(context.Background(), res.Run.ID, 10*time.Second); err != nil || r.Status != domain.RunOK {
		t.Fatalf("run %+v, %v", r, err)
	}
	user := h.history("main")[0]
	blocks := user.Content.Blocks()
	if len(blocks) != 2 || blocks[1].Type != domain.BlockImage || blocks[1].MimeType != "image/png" {
		t.Fatalf("user message blocks %+v", blocks)
	}
	text := blocks[0].Text
	if !strings.Contains(text, "[media attached: 2 files]") || !strings.Contains(text, `(text/plain) "notes.txt"]`) {
		t.Fatalf("user message text %q", text)
	}
	rel := text[:strings.Index(text, "/notes.txt")]
	rel = rel[strings.LastIndex(rel, ".switchboard/attachments/"):]
	got, err := os.ReadFile(filepath.Join(h.cfg.Workspace(h.dir, "main"), rel, "notes.txt"))
	if err != nil || string(got) != "remember the milk" {
		t.Fatalf("the document in the workspace: %q, %v", got, err)
	}
	// A restart's sweep of spawn folders no run names keeps the files of
	// a chat message: the transcript names them.
	h.restartWith(func(*config.Config) {})
	if got, err := os.ReadFile(filepath.Join(h.cfg.Workspace(h.dir, "main"), rel, "notes.txt")); err != nil || string(got) != "remember the milk" {
		t.Fatalf("the document after a restart: %q, %v", got, err)
	}
	if n := h.e.StartReport().AttachmentsRemoved; n != 0 {
		t.Fatalf("the start removed %d attachment folders, want none", n)
	}

	out := h.call(Requester{Operator: true}, "sessions_history", `{"sessionKey":"main"}`)
	var hist struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(out.JSON(), &hist); err != nil || len(hist.Messages) == 0 {
		t.Fatalf("history %s: %v", out.JSON(), err)
	}
	var compact bytes.Buffer
	_ = json.Compact(&compact, hist.Messages[0])
	first := compact.String()
	if !strings.Contains(first, `"omitted":true`) || strings.Contains(first, `"data"`) {
		t.Errorf("sessions_history shows the image's bytes: %s", first)
	}
}

func TestChatAttachmentsRefused(t *testing.T) {
	h := newHarness(t, nil, func(c *config.Config) { c.Tools.SessionsSpawn.Attachments.MaxFileBytes = 8 })
	for _, tt := range []struct {
		files []attachments.File
		want  string
	}{
		{[]attachments.File{{Name: "big.bin", Data: make([]byte, 9)}}, "attachments_file_bytes_exceeded (name=big.bin bytes=9 maxFileBytes=8)"},
		{[]attachments.File{{Name: "a/b", Data: []byte("x")}}, "attachments_invalid_name (a/b)"},
		{nil, "message required"},
	} {
		_, err := h.e.chat(context.Background(), api.ChatRequest{SessionKey: "main", Attachments: tt.files})
		if err == nil || err.Error() != tt.want || domain.ErrorCode(err) != domain.CodeInvalid {
			t.Errorf("chat with %d files: %v, want %q", len(tt.files), err, tt.want)
		}
	}
	if msgs := h.history("main"); len(msgs) != 0 {
		t.Errorf("a refused chat wrote %d messages", len(msgs))
	}
}

// A send with files stores them in its outbox item, mirrors their names
// into the transcript, and is refused for a channel that cannot send
// files and past the attachment limits.
func TestDeliverAttachments(t *testing.T) {
	h := newHarness(t, nil, func(c *config.Config) { c.Tools.SessionsSpawn.Attachments.MaxFileBytes = 16 })
	ctx := context.Background()
	file := attachments.Spec{Name: "a.txt", Content: "aGVsbG8=", Encoding: "base64"}
	res, err := h.e.Deliver(ctx, api.Operator(), api.DeliverRequest{Channel: "telegram", To: "telegram:1", Attachments: []attachments.Spec{file}})
	if err != nil {
		t.Fatal(err)
	}
	items, err := h.st.ListOutbox(ctx, domain.OutboxQuery{SessionKey: res.SessionKey})
	if err != nil || len(items) != 1 {
		t.Fatalf("outbox %+v, %v", items, err)
	}
	if want := `{"text":"","files":[{"name":"a.txt","mimeType":"text/plain","data":"aGVsbG8="}]}`; string(items[0].Payload) != want {
		t.Errorf("payload %s, want %s", items[0].Payload, want)
	}
	if msgs := h.history("main"); len(msgs) != 1 || msgs[0].Content.Text() != "[media sent: a.txt (text/plain)]" {
		t.Errorf("mirror %v", texts(msgs))
	}
	for _, tt := range []struct {
		req  api.DeliverRequest
		want string
	}{
		{api.DeliverRequest{Channel: "hook", To: "+1", Attachments: []attachments.Spec{file}}, "channel hook cannot send files yet"},
		{api.DeliverRequest{Channel: "discord", To: "channel:1", Attachments: []attachments.Spec{{Name: "b", Content: strings.Repeat("x", 17)}}},
			"attachments_file_bytes_exceeded (name=b bytes=17 maxFileBytes=16)"},
		{api.DeliverRequest{Channel: "discord", To: "channel:1", Attachments: []attachments.Spec{{Name: "b", Content: "!!", Encoding: "base64"}}},
			"attachments_invalid_base64_or_too_large"},
	} {
		if _, err := h.e.Deliver(ctx, api.Operator(), tt.req); err == nil || err.Error() != tt.want {
			t.Errorf("%s: %v, want %q", tt.req.Channel, err, tt.want)
		}
	}
}
