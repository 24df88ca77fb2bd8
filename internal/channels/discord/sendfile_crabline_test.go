package discord

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/switchboard-go/switchboard/internal/attachments"
	"github.com/switchboard-go/switchboard/internal/channels"
	"github.com/switchboard-go/switchboard/internal/channels/crabline"
)

// Files go out as one multipart message with the text, and crabline (a
// Discord REST server nobody here wrote) takes them.
func TestSendFilesAgainstCrabline(t *testing.T) {
	c := crabline.Start(t, "discord")
	a, err := New(Options{Block: map[string]any{"token": c.BotToken, "apiRoot": c.BaseURL + "/api"}})
	if err != nil {
		t.Fatal(err)
	}
	png := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 64)...)
	err = a.Send(context.Background(), channels.Outbound{To: "channel:" + c.Fixture.ChannelID, Text: "the chart",
		IdempotencyKey: "send:files-1", Files: []attachments.File{
			{Name: "chart.png", MimeType: "image/png", Data: png},
			{Name: "notes.txt", MimeType: "text/plain", Data: []byte("three lines")},
		}})
	if err != nil {
		t.Fatal(err)
	}
	posts := c.DiscordPosts(t, c.Fixture.ChannelID)
	if len(posts) != 1 {
		t.Fatalf("%d posts, want one message carrying the text and both files", len(posts))
	}
	raw, _ := json.Marshal(posts[0].Body)
	var body struct {
		Content     string `json:"content"`
		Nonce       string `json:"nonce"`
		Attachments []struct {
			Filename string `json:"filename"`
			Size     int64  `json:"size"`
			URL      string `json:"url"`
		} `json:"attachments"`
	}
	if err := json.Unmarshal(raw, &body); err != nil || body.Content != "the chart" || body.Nonce == "" || len(body.Attachments) != 2 {
		t.Fatalf("the recorded post: %s (%v)", raw, err)
	}
	// The files crabline stored come back byte for byte through the
	// inbound fetcher (its URLs are on the configured apiRoot's origin).
	f := newMediaFetcher(attachments.Limits{}, 0, c.BaseURL+"/api", nil)
	f.trusted = http.DefaultClient
	var atts []Attachment
	for _, at := range body.Attachments {
		atts = append(atts, Attachment{Filename: at.Filename, Size: at.Size, URL: at.URL})
	}
	in := channels.Inbound{}
	if err := f.fetch(context.Background(), atts, &in); err != nil {
		t.Fatal(err)
	}
	if len(in.Files) != 2 || !bytes.Equal(in.Files[0].Data, png) || string(in.Files[1].Data) != "three lines" || in.Files[0].Name != "chart.png" {
		t.Fatalf("files back from crabline: %+v (text %q)", in.Files, in.Text)
	}
}
