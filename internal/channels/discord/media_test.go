package discord

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/switchboard-go/switchboard/internal/attachments"
	"github.com/switchboard-go/switchboard/internal/channels"
)

func TestDecodeMessageAttachments(t *testing.T) {
	m, err := decodeMessage([]byte(`{"id":"1","channel_id":"2","author":{"id":"3","username":"ada"},"content":"",
		"attachments":[{"id":"9","filename":"cat.png","content_type":"image/png","size":12,"url":"https://cdn.discordapp.com/attachments/2/9/cat.png"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := Attachment{Filename: "cat.png", ContentType: "image/png", Size: 12, URL: "https://cdn.discordapp.com/attachments/2/9/cat.png"}
	if len(m.Attachments) != 1 || m.Attachments[0] != want {
		t.Fatalf("attachments %+v, want [%+v]", m.Attachments, want)
	}
}

func TestMediaFetch(t *testing.T) {
	png := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 100)...)
	root := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/attachments/cat.png":
			_, _ = w.Write(png)
		case "/attachments/big.bin":
			_, _ = w.Write(make([]byte, 5000))
		default:
			http.NotFound(w, r)
		}
	}))
	defer root.Close()
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the gateway fetched %s from a host no config names", r.URL)
	}))
	defer other.Close()
	// The loopback server posing as Discord's CDN: the URL guard must still
	// refuse its address.
	cdnHosts["127.0.0.1"] = true
	defer delete(cdnHosts, "127.0.0.1")

	f := newMediaFetcher(attachments.Limits{MaxFileBytes: 1000}, 0, root.URL, root.Client())
	in := channels.Inbound{Text: "look"}
	err := f.fetch(context.Background(), []Attachment{
		{Filename: "cat.png", ContentType: "image/png", URL: root.URL + "/attachments/cat.png"},
		{Filename: "big.bin", URL: root.URL + "/attachments/big.bin"},
		{Filename: "declared.bin", Size: 4000, URL: root.URL + "/attachments/big.bin"},
		{Filename: "internal.txt", URL: other.URL + "/secret"},
		{Filename: "elsewhere.txt", URL: "https://example.com/x"},
		{Filename: "gone.txt", URL: root.URL + "/attachments/gone.txt"},
	}, &in)
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Files) != 1 || in.Files[0].Name != "cat.png" || string(in.Files[0].Data) != string(png) {
		t.Fatalf("files %+v, want cat.png only", in.Files)
	}
	for _, want := range []string{
		"[media not attached: big.bin (over the 1000 bytes allowed)]",
		"[media not attached: declared.bin (4000 bytes, over maxFileBytes 1000)]",
		"[media not attached: internal.txt (refused by the outbound URL policy: 127.0.0.1 is a loopback",
		"[media not attached: elsewhere.txt (example.com is not Discord's CDN)]",
		"[media not attached: gone.txt (the provider answered HTTP 404)]",
	} {
		if !strings.Contains(in.Text, want) {
			t.Errorf("text lacks %q:\n%s", want, in.Text)
		}
	}
	if !strings.HasPrefix(in.Text, "look\n") {
		t.Errorf("the message text is not kept first: %q", in.Text)
	}
}

// An attachment over the account's mediaMaxMb is not downloaded, even
// where the attachment limits would take it, and the turn names the limit.
func TestMediaMaxMb(t *testing.T) {
	var fetched atomic.Int32
	root := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetched.Add(1)
		_, _ = w.Write(make([]byte, 2000))
	}))
	defer root.Close()
	f := newMediaFetcher(attachments.Limits{MaxFileBytes: 1 << 20}, 0.001, root.URL, root.Client())
	in := channels.Inbound{Text: "look"}
	if err := f.fetch(context.Background(), []Attachment{
		{Filename: "declared.bin", Size: 2000, URL: root.URL + "/attachments/declared.bin"},
		{Filename: "quiet.bin", URL: root.URL + "/attachments/quiet.bin"},
	}, &in); err != nil {
		t.Fatal(err)
	}
	const want = "[media not attached: declared.bin (2000 bytes: file exceeds 0.001MB limit, channels.discord.mediaMaxMb)]"
	if len(in.Files) != 0 || !strings.Contains(in.Text, want) || !strings.Contains(in.Text, "[media not attached: quiet.bin (2000 bytes, over the 1048 bytes allowed)]") {
		t.Errorf("files %d, text %q; want both refused, the declared one naming mediaMaxMb", len(in.Files), in.Text)
	}
	if n := fetched.Load(); n != 1 {
		t.Errorf("%d downloads, want 1 (the file whose size was not declared)", n)
	}
}
