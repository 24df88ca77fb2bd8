package whatsapp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/attachments"
	"github.com/switchboard-go/switchboard/internal/channels"
	"github.com/switchboard-go/switchboard/internal/channels/chantest"
	"github.com/switchboard-go/switchboard/internal/channels/crabline"
	"github.com/switchboard-go/switchboard/internal/outbox"
)

// mediaGraph stands in front of crabline for what its WhatsApp server
// does not serve: crabline 0.1.27 has no media routes (no upload at POST
// /<phone-number-id>/media, no GET /<media-id>; its inbound audio is a
// WhatsApp Web media blob) and takes only text messages, so the proxy
// answers uploads, media messages, media lookups and downloads itself, in
// the shapes of Meta's Cloud API reference, and passes everything else
// (text messages, the phone number) on to crabline.
type mediaGraph struct {
	t      *testing.T
	token  string
	mu     sync.Mutex
	nextID int
	// uploads are the uploaded files by media id; sent the media
	// messages, in order.
	uploads map[string]upload
	sent    []map[string]any
	// served are the received files GET /<media-id> finds; downloads
	// counts the downloads of their URLs.
	served    map[string]served
	downloads int
}

type served struct {
	mimeType string
	data     []byte
}

// serve makes a media id known, as Meta knows a received file.
func (g *mediaGraph) serve(id, mimeType string, data []byte) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.served[id] = served{mimeType: mimeType, data: data}
}

type upload struct {
	name, fileType, typeField, product string
	data                               []byte
}

func newMediaGraph(t *testing.T, c *crabline.Server) (*httptest.Server, *mediaGraph) {
	g := &mediaGraph{t: t, token: c.AccessToken, uploads: map[string]upload{}, served: map[string]served{}}
	target, _ := url.Parse(c.BaseURL)
	rp := httputil.NewSingleHostReverseProxy(target)
	mediaPath := "/" + c.GraphVersion + "/" + c.PhoneNumberID + "/media"
	messagesPath := "/" + c.GraphVersion + "/" + c.PhoneNumberID + "/messages"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost && r.URL.Path == mediaPath:
			g.upload(w, r)
			return
		case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/download/"):
			g.download(w, r, strings.TrimPrefix(r.URL.Path, "/download/"))
			return
		case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/"+c.GraphVersion+"/"):
			id := strings.TrimPrefix(r.URL.Path, "/"+c.GraphVersion+"/")
			g.mu.Lock()
			f, ok := g.served[id]
			g.mu.Unlock()
			if ok && g.authorized(w, r) {
				sum := sha256.Sum256(f.data)
				_ = json.NewEncoder(w).Encode(map[string]any{"messaging_product": "whatsapp", "id": id, "mime_type": f.mimeType,
					"sha256": hex.EncodeToString(sum[:]), "file_size": strconv.Itoa(len(f.data)), "url": "http://" + r.Host + "/download/" + id})
				return
			}
			if ok {
				return
			}
		case r.Method == http.MethodPost && r.URL.Path == messagesPath:
			b, _ := io.ReadAll(r.Body)
			var m map[string]any
			_ = json.Unmarshal(b, &m)
			if m["type"] != "text" {
				g.mediaMessage(w, r, m)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, g
}

func (g *mediaGraph) authorized(w http.ResponseWriter, r *http.Request) bool {
	if r.Header.Get("Authorization") != "Bearer "+g.token {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error":{"message":"Invalid OAuth access token.","code":190}}`))
		return false
	}
	return true
}

func (g *mediaGraph) download(w http.ResponseWriter, r *http.Request, id string) {
	if !g.authorized(w, r) {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	f, ok := g.served[id]
	g.downloads++
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", f.mimeType)
	_, _ = w.Write(f.data)
}

func (g *mediaGraph) upload(w http.ResponseWriter, r *http.Request) {
	if !g.authorized(w, r) {
		return
	}
	if err := r.ParseMultipartForm(32 << 20); err != nil {
		http.Error(w, `{"error":{"message":"(#100) not multipart","code":100}}`, http.StatusBadRequest)
		return
	}
	f, h, err := r.FormFile("file")
	if err != nil {
		http.Error(w, `{"error":{"message":"(#100) Param file is required","code":100}}`, http.StatusBadRequest)
		return
	}
	data, _ := io.ReadAll(f)
	g.mu.Lock()
	defer g.mu.Unlock()
	g.nextID++
	id := "media-" + string(rune('0'+g.nextID))
	g.uploads[id] = upload{name: h.Filename, fileType: h.Header.Get("Content-Type"), typeField: r.FormValue("type"),
		product: r.FormValue("messaging_product"), data: data}
	_ = json.NewEncoder(w).Encode(map[string]string{"id": id})
}

func (g *mediaGraph) mediaMessage(w http.ResponseWriter, r *http.Request, m map[string]any) {
	if !g.authorized(w, r) {
		return
	}
	kind, _ := m["type"].(string)
	obj, _ := m[kind].(map[string]any)
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.uploads[obj["id"].(string)]; !ok || m["messaging_product"] != "whatsapp" {
		http.Error(w, `{"error":{"message":"(#100) Invalid parameter","code":100}}`, http.StatusBadRequest)
		return
	}
	g.sent = append(g.sent, m)
	_ = json.NewEncoder(w).Encode(map[string]any{"messaging_product": "whatsapp", "messages": []any{map[string]string{"id": "wamid.MEDIA"}}})
}

func TestSendFilesAgainstCrabline(t *testing.T) {
	c := crabline.Start(t, "whatsapp")
	srv, g := newMediaGraph(t, c)
	a, err := New(Options{Raw: map[string]any{"accessToken": c.AccessToken, "phoneNumberId": c.PhoneNumberID,
		"appSecret": appSecret, "verifyToken": "v", "apiRoot": srv.URL + "/" + c.GraphVersion}})
	if err != nil {
		t.Fatal(err)
	}
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	const to = "15550001001"

	t.Run("an image with its caption, a document with its name", func(t *testing.T) {
		err := a.Send(context.Background(), channels.Outbound{To: "whatsapp:+" + to, Text: "the **chart**", IdempotencyKey: "f1",
			Files: []attachments.File{{Name: "chart.png", Data: png}, {Name: "notes.txt", MimeType: "text/plain", Data: []byte("three lines")}}})
		if err != nil {
			t.Fatal(err)
		}
		g.mu.Lock()
		defer g.mu.Unlock()
		if len(g.sent) != 2 {
			t.Fatalf("media messages %v, want 2", g.sent)
		}
		img, doc := g.sent[0], g.sent[1]
		imo, _ := img["image"].(map[string]any)
		do, _ := doc["document"].(map[string]any)
		if img["type"] != "image" || img["to"] != to || imo["caption"] != "the *chart*" {
			t.Errorf("image message %v", img)
		}
		if doc["type"] != "document" || do["filename"] != "notes.txt" || do["caption"] != nil {
			t.Errorf("document message %v", doc)
		}
		up := g.uploads[imo["id"].(string)]
		if !bytes.Equal(up.data, png) || up.name != "chart.png" || up.fileType != "image/png" || up.typeField != "image/png" || up.product != "whatsapp" {
			t.Errorf("image upload %+v", up)
		}
		if up := g.uploads[do["id"].(string)]; string(up.data) != "three lines" || up.typeField != "text/plain" {
			t.Errorf("document upload %+v", up)
		}
	})
	t.Run("a text over the caption limit goes first, to crabline", func(t *testing.T) {
		long := strings.Repeat("long words ", 120)
		err := a.Send(context.Background(), channels.Outbound{To: "whatsapp:+" + to, Text: long, IdempotencyKey: "f2",
			Files: []attachments.File{{Name: "a.png", Data: png}}})
		if err != nil {
			t.Fatal(err)
		}
		if n := c.CloudSent(t, to, "long words long words"); n != 1 {
			t.Fatalf("crabline recorded %d text messages, want 1", n)
		}
		g.mu.Lock()
		last := g.sent[len(g.sent)-1]
		g.mu.Unlock()
		if obj := last["image"].(map[string]any); obj["caption"] != nil {
			t.Errorf("the image kept a caption: %v", last)
		}
	})
	t.Run("a file over its type's limit fails for good, nothing sent", func(t *testing.T) {
		g.mu.Lock()
		before := len(g.uploads)
		g.mu.Unlock()
		big := append(append([]byte{}, png...), make([]byte, maxImageBytes)...)
		err := a.Send(context.Background(), channels.Outbound{To: "whatsapp:+" + to, Text: "big", IdempotencyKey: "f3",
			Files: []attachments.File{{Name: "big.png", Data: big}}})
		if !errors.Is(err, outbox.ErrPermanent) || !strings.Contains(err.Error(), "big.png") || !strings.Contains(err.Error(), "5242880-byte limit for image") {
			t.Fatalf("err = %v", err)
		}
		g.mu.Lock()
		defer g.mu.Unlock()
		if len(g.uploads) != before {
			t.Fatal("an oversized file was uploaded")
		}
	})
}

// A received audio message: crabline's admin ingress makes its Cloud API
// payload (type audio, its media id), the Graph stand-in serves the file
// for that id, and the turn carries it; a file over the limit or one Meta
// no longer has becomes a note.
func TestInboundMediaAgainstCrabline(t *testing.T) {
	c := crabline.Start(t, "whatsapp")
	srv, g := newMediaGraph(t, c)
	sink, voice := startInbound(t, c, srv, g, nil, attachments.Limits{MaxFileBytes: 64})
	const ada = "15550001001"
	ogg := []byte("OggS\x00\x02 a voice note")
	id := voice(ogg)
	in := sink.Last()
	if len(in.Files) != 1 || in.Files[0].Name != "audio-"+id+".ogg" || in.Files[0].MimeType != "audio/ogg" || !bytes.Equal(in.Files[0].Data, ogg) {
		t.Fatalf("inbound %+v", in)
	}
	if in.SenderID != "+"+ada || in.Text != "" {
		t.Fatalf("inbound %+v", in)
	}
	g.mu.Lock()
	before := g.downloads
	g.mu.Unlock()
	id = voice(make([]byte, 65))
	if got := sink.Last().Text; got != "[media not attached: audio-"+id+".ogg (65 bytes, over maxFileBytes 64)]" {
		t.Fatalf("an oversized file: %q", got)
	}
	g.mu.Lock()
	if g.downloads != before {
		t.Error("an oversized file was downloaded")
	}
	g.mu.Unlock()
	id = voice(nil)
	if got := sink.Last().Text; !strings.HasPrefix(got, "[media not attached: audio-"+id+".ogg (whatsapp GET /"+id+": 404") {
		t.Fatalf("a file Meta does not have: %q", got)
	}
}

// startInbound starts an adapter on crabline's number behind the Graph
// stand-in, with extra keys over its block, and returns its sink and a
// voice function: it injects an audio message and relays its payload,
// with the file served under its media id when data is not nil.
func startInbound(t *testing.T, c *crabline.Server, srv *httptest.Server, g *mediaGraph, extra map[string]any, lim attachments.Limits) (*chantest.EchoSink, func([]byte) string) {
	t.Helper()
	block := map[string]any{"accessToken": c.AccessToken, "phoneNumberId": c.PhoneNumberID,
		"appSecret": appSecret, "verifyToken": "v", "apiRoot": srv.URL + "/" + c.GraphVersion, "webhookPort": 0,
		"dmPolicy": "open", "allowFrom": []any{"*"}}
	for k, v := range extra {
		block[k] = v
	}
	a, err := New(Options{Raw: block, MediaLimits: lim})
	if err != nil {
		t.Fatal(err)
	}
	sink := &chantest.EchoSink{Send: a.Send}
	if err := a.Start(context.Background(), sink); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = a.Stop(ctx)
	})
	hook := a.WebhookURL(channels.DefaultAccountID)
	const ada = "15550001001"
	voice := func(data []byte) string {
		t.Helper()
		var res struct {
			Webhook json.RawMessage `json:"webhook"`
		}
		body := c.InjectResult(t, map[string]any{"chatJid": ada + "@s.whatsapp.net", "senderJid": ada + "@s.whatsapp.net",
			"audio": map[string]any{"contentBase64": "AAECAw==", "mimeType": "audio/ogg"}})
		if err := json.Unmarshal(body, &res); err != nil {
			t.Fatal(err)
		}
		var p struct {
			Entry []struct {
				Changes []struct {
					Value struct {
						Messages []struct {
							Audio struct {
								ID string `json:"id"`
							} `json:"audio"`
						} `json:"messages"`
					} `json:"value"`
				} `json:"changes"`
			} `json:"entry"`
		}
		_ = json.Unmarshal(res.Webhook, &p)
		id := p.Entry[0].Changes[0].Value.Messages[0].Audio.ID
		if id == "" {
			t.Fatalf("crabline's payload has no audio id: %s", res.Webhook)
		}
		if data != nil {
			g.serve(id, "audio/ogg", data)
		}
		if st := crabline.PostSigned(t, hook, signer(appSecret), res.Webhook); st != http.StatusOK {
			t.Fatalf("webhook answered %d", st)
		}
		return id
	}
	return sink, voice
}

// A file whose announced size is over the account's mediaMaxMb is not
// downloaded: the turn carries a note naming the key.
func TestInboundMediaMaxMbAgainstCrabline(t *testing.T) {
	c := crabline.Start(t, "whatsapp")
	srv, g := newMediaGraph(t, c)
	sink, voice := startInbound(t, c, srv, g, map[string]any{"mediaMaxMb": 0.001}, attachments.Limits{})
	id := voice(make([]byte, 2000))
	const note = " (2000 bytes: file exceeds 0.001MB limit, channels.whatsapp.mediaMaxMb)]"
	if got := sink.Last(); got.Text != "[media not attached: audio-"+id+".ogg"+note || len(got.Files) != 0 {
		t.Fatalf("a file over mediaMaxMb: %+v", got)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.downloads != 0 {
		t.Errorf("a file over mediaMaxMb was downloaded %d times", g.downloads)
	}
}
