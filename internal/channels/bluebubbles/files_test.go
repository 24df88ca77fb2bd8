package bluebubbles

import (
	"bytes"
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/attachments"
	"github.com/switchboard-go/switchboard/internal/channels"
	"github.com/switchboard-go/switchboard/internal/channels/bluebubbles/bbtest"
	"github.com/switchboard-go/switchboard/internal/channels/chantest"
)

// Files leave through POST /api/v1/message/attachment after the text; a
// retried delivery resumes after what the server took.
func TestSendFilesToFakeServer(t *testing.T) {
	srv := bbtest.New(t, "pw")
	a, err := New(Options{Raw: map[string]any{"serverUrl": srv.URL, "password": "pw"}})
	if err != nil {
		t.Fatal(err)
	}
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	const chat = "iMessage;-;+15551234567"
	msg := channels.Outbound{To: "bluebubbles:chat_guid:" + chat, Text: "the **chart**", IdempotencyKey: "f1",
		Files: []attachments.File{{Name: "chart.png", Data: png}, {Name: `my "notes".txt`, MimeType: "text/plain", Data: []byte("three lines")}}}
	// The server down: the delivery is retried and sends everything once.
	srv.Down.Store(true)
	if err := a.Send(context.Background(), msg); err == nil {
		t.Fatal("a send to a server that is down succeeded")
	}
	srv.Down.Store(false)
	if err := a.Send(context.Background(), msg); err != nil {
		t.Fatal(err)
	}
	if n := srv.Sent(chat, "the chart"); n != 1 {
		t.Fatalf("the text was sent %d times, want 1", n)
	}
	got := srv.Attachments()
	if len(got) != 2 {
		t.Fatalf("attachments %+v, want 2", got)
	}
	if g := got[0]; g.ChatGUID != chat || g.TempGUID != "f1#1" || g.Name != "chart.png" || g.FileType != "image/png" || !bytes.Equal(g.Data, png) {
		t.Errorf("first attachment %+v", g)
	}
	if g := got[1]; g.TempGUID != "f1#2" || g.Name != `my "notes".txt` || g.FileName != `my "notes".txt` || g.FileType != "text/plain" || string(g.Data) != "three lines" {
		t.Errorf("second attachment %+v", g)
	}
}

// A received photo is downloaded from the server and becomes the turn's
// file; one the server no longer has becomes a note, and the turn goes on.
func TestInboundAttachmentFromFakeServer(t *testing.T) {
	srv := bbtest.New(t, "pw")
	jpeg := []byte{0xff, 0xd8, 0xff, 0xe0}
	srv.Serve("at_0_C0FFEE00-0000-4000-8000-000000000003", "image/jpeg", jpeg)
	a, err := New(Options{Raw: map[string]any{"serverUrl": srv.URL, "password": "pw", "webhookPort": 0, "dmPolicy": "open", "allowFrom": []any{"*"}},
		MediaLimits: attachments.Limits{MaxFileBytes: 1 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	sink := &chantest.EchoSink{Send: a.Send}
	if err := a.Start(context.Background(), sink); err != nil {
		t.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = a.Stop(ctx)
	}()
	hook := a.WebhookURL(channels.DefaultAccountID)
	if st := deliver(t, hook, "pw", bbtest.File(t, "new-message-attachment.json")); st != http.StatusOK {
		t.Fatalf("webhook answered %d", st)
	}
	in, n := sink.Inbound("the receipt")
	if n != 1 || len(in.Files) != 1 || in.Files[0].Name != "IMG_0001.jpeg" || in.Files[0].MimeType != "image/jpeg" || !bytes.Equal(in.Files[0].Data, jpeg) {
		t.Fatalf("inbound %+v (%d)", in, n)
	}
	// A photo alone (no text) is a turn too; one that is gone is a note.
	body := bbtest.Delivery(t, "new-message-attachment.json", "C0FFEE00-0000-4000-8000-000000000004", "", "")
	body = bytes.Replace(body, []byte(`"text":"the receipt"`), []byte(`"text":""`), 1)
	body = bytes.Replace(body, []byte(`at_0_C0FFEE00-0000-4000-8000-000000000003`), []byte(`at_gone`), 1)
	if st := deliver(t, hook, "pw", body); st != http.StatusOK {
		t.Fatalf("webhook answered %d", st)
	}
	last := sink.Last()
	if len(last.Files) != 0 || last.Text != "[media not attached: IMG_0001.jpeg (the provider answered HTTP 404)]" {
		t.Fatalf("inbound of a gone photo %+v", last)
	}
}

// An attachment whose totalBytes is over the account's mediaMaxMb is not
// downloaded: the turn carries a note naming the key.
func TestInboundMediaMaxMbFromFakeServer(t *testing.T) {
	srv := bbtest.New(t, "pw")
	srv.Serve("at_0_C0FFEE00-0000-4000-8000-000000000003", "image/jpeg", make([]byte, 2000))
	a, err := New(Options{Raw: map[string]any{"serverUrl": srv.URL, "password": "pw", "webhookPort": 0, "dmPolicy": "open", "allowFrom": []any{"*"},
		"mediaMaxMb": 0.001}})
	if err != nil {
		t.Fatal(err)
	}
	sink := &chantest.EchoSink{Send: a.Send}
	if err := a.Start(context.Background(), sink); err != nil {
		t.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = a.Stop(ctx)
	}()
	body := bytes.Replace(bbtest.File(t, "new-message-attachment.json"), []byte(`"totalBytes": 4`), []byte(`"totalBytes": 2000`), 1)
	if st := deliver(t, a.WebhookURL(channels.DefaultAccountID), "pw", body); st != http.StatusOK {
		t.Fatalf("webhook answered %d", st)
	}
	const want = "the receipt\n[media not attached: IMG_0001.jpeg (2000 bytes: file exceeds 0.001MB limit, channels.bluebubbles.mediaMaxMb)]"
	if in, n := sink.Inbound(want); n != 1 || len(in.Files) != 0 {
		t.Fatalf("inbound %+v (%d), want one with text %q", sink.Last(), n, want)
	}
	if d := srv.Downloads(); d != 0 {
		t.Errorf("a file over mediaMaxMb was downloaded %d times", d)
	}
}
