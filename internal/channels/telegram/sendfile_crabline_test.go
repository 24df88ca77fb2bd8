package telegram

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/attachments"
	"github.com/switchboard-go/switchboard/internal/channels"
	"github.com/switchboard-go/switchboard/internal/channels/crabline"
)

// A photo goes out as sendPhoto with the text as its caption, a document
// as sendDocument, both multipart uploads crabline (a Bot API server
// nobody here wrote) takes.
func TestSendFilesAgainstCrabline(t *testing.T) {
	c := crabline.Start(t, "telegram")
	a, err := New(Options{Raw: map[string]any{"botToken": c.BotToken, "apiRoot": c.Endpoints.APIRoot}})
	if err != nil {
		t.Fatal(err)
	}
	err = a.Send(context.Background(), channels.Outbound{To: "telegram:4242", Text: "the **chart**",
		Files: []attachments.File{
			{Name: "chart.png", MimeType: "image/png", Data: pngBytes},
			{Name: "report.pdf", MimeType: "application/pdf", Data: pdfBytes},
		}})
	if err != nil {
		t.Fatal(err)
	}
	var methods []string
	for _, call := range c.Calls(t, func(crabline.Call) bool { return true }) {
		m := call.Path[strings.LastIndex(call.Path, "/")+1:]
		if m != "sendPhoto" && m != "sendDocument" {
			continue
		}
		raw, _ := json.Marshal(call.Body)
		if !call.Accepted {
			t.Errorf("crabline refused %s: %s", m, raw)
		}
		methods = append(methods, m)
		if m == "sendPhoto" && (call.Body["caption"] != "the <b>chart</b>" || call.Body["photo"] != "chart.png" || call.Body["chat_id"] != "4242") {
			t.Errorf("the photo, its caption the text as HTML: %s", raw)
		}
		if m == "sendDocument" && (call.Body["document"] != "report.pdf" || call.Body["caption"] != nil) {
			t.Errorf("the document, without a caption: %s", raw)
		}
	}
	if strings.Join(methods, ",") != "sendPhoto,sendDocument" {
		t.Fatalf("recorded %v, want sendPhoto then sendDocument", methods)
	}
}
