package telegram

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/attachments"
	"github.com/switchboard-go/switchboard/internal/channels"
	"github.com/switchboard-go/switchboard/internal/channels/chantest"
	"github.com/switchboard-go/switchboard/internal/channels/crabline"
)

// documentProxy is the test's own proxy in front of crabline, whose
// ingress injects text only: it gives every message getUpdates returns a
// document of docSize bytes, as Telegram describes one before it is
// downloaded.
func documentProxy(t *testing.T, target string, docSize int64) *httptest.Server {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := httputil.NewSingleHostReverseProxy(u)
	p.ModifyResponse = func(r *http.Response) error {
		if !strings.HasSuffix(r.Request.URL.Path, "/getUpdates") {
			return nil
		}
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return err
		}
		var res struct {
			OK     bool             `json:"ok"`
			Result []map[string]any `json:"result"`
		}
		if json.Unmarshal(b, &res) == nil && res.OK {
			for _, u := range res.Result {
				if m, ok := u["message"].(map[string]any); ok {
					m["caption"] = m["text"]
					delete(m, "text")
					m["document"] = map[string]any{"file_id": "doc1", "file_unique_id": "udoc1", "file_name": "big.pdf",
						"mime_type": "application/pdf", "file_size": docSize}
				}
			}
			b, _ = json.Marshal(res)
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		r.ContentLength = int64(len(b))
		r.Header.Set("Content-Length", strconv.Itoa(len(b)))
		return nil
	}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return srv
}

// TestMediaMaxMbAgainstCrabline: a document over channels.telegram.mediaMaxMb
// is not downloaded (no getFile), the turn still comes with a note naming
// the file and the limit, and the sender gets OpenClaw's warning in the
// chat, a sendMessage crabline records.
func TestMediaMaxMbAgainstCrabline(t *testing.T) {
	c := crabline.Start(t, "telegram")
	proxy := documentProxy(t, c.Endpoints.APIRoot, 3<<20)
	a, err := New(Options{Raw: map[string]any{"botToken": c.BotToken, "apiRoot": proxy.URL, "dmPolicy": "open", "mediaMaxMb": 2},
		StateDir: t.TempDir(), MediaLimits: attachments.Limits{MaxFileBytes: 10 << 20, MaxTotalBytes: 20 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	sink := &chantest.EchoSink{Send: a.Send}
	if err := a.Start(context.Background(), sink); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Stop(context.Background()) })

	c.Inject(t, map[string]any{"chatId": 4242, "fromId": 4242, "text": "the report"})
	const warning = "⚠️ File too large. Maximum size is 2MB."
	sentText := func(text string) func() bool {
		return func() bool {
			return len(c.Calls(t, func(call crabline.Call) bool {
				return strings.HasSuffix(call.Path, "/sendMessage") && call.Body["text"] == text
			})) > 0
		}
	}
	crabline.WaitFor(t, "the oversize warning", sentText(warning))
	in := sink.Last()
	const note = "[media not attached: big.pdf (3145728 bytes: file exceeds 2MB limit, channels.telegram.mediaMaxMb)]"
	if in.Text != "the report\n"+note || len(in.Files) != 0 {
		t.Errorf("the turn: text %q, %d files; want the caption and %q", in.Text, len(in.Files), note)
	}
	crabline.WaitFor(t, "the turn's reply", sentText("echo: the report\n"+note))
	if got := c.Calls(t, func(call crabline.Call) bool { return strings.HasSuffix(call.Path, "/getFile") }); len(got) != 0 {
		t.Errorf("a file over mediaMaxMb was asked for: %+v", got)
	}
}

// The cap is per account, an account's own value over the top level's,
// and OpenClaw's default of 100 MB without one; it holds even where the
// attachment limits would allow more.
func TestMediaMaxMbPerAccount(t *testing.T) {
	root, err := parseConfig(map[string]any{"botToken": "1:a", "mediaMaxMb": 0.5,
		"accounts": map[string]any{"big": map[string]any{"botToken": "2:b", "mediaMaxMb": 8}, "plain": map[string]any{"botToken": "3:c"}}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, x := range accounts(root, func(string) string { return "" }) {
		got[x.id] = channels.MediaCap{MB: x.cfg.MediaMaxMb, Key: "k"}.Bytes()
	}
	if got["big"] != 8<<20 || got["plain"] != 1<<19 {
		t.Errorf("caps %v, want big 8 MiB and plain the top level's 0.5 MiB", got)
	}
	if d := (channels.MediaCap{Key: "k"}).Bytes(); d != 100<<20 {
		t.Errorf("default cap %d, want OpenClaw's 100 MB", d)
	}
}
