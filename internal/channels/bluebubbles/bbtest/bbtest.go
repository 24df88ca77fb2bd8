// Package bbtest is a fake BlueBubbles server for tests, built from the
// request and answer shapes in testdata/ (BlueBubbles' public REST and
// webhook documentation, named in testdata/README.md): the password in
// the query, GET /api/v1/ping, POST /api/v1/message/text and the typing
// indicator (POST and DELETE /api/v1/chat/<guid>/typing), attachment
// sends (POST /api/v1/message/attachment, multipart) and downloads (GET
// /api/v1/attachment/<guid>/download), answered in BlueBubbles'
// envelope. It also holds the webhook deliveries tests post.
package bbtest

import (
	"bytes"
	"embed"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

//go:embed testdata/*.json
var files embed.FS

// File returns a testdata file.
func File(t testing.TB, name string) []byte {
	t.Helper()
	b, err := files.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Delivery returns a testdata webhook delivery with its message guid
// suffix, text and sender address replaced (empty keeps the original).
func Delivery(t testing.TB, file, guid, text, sender string) []byte {
	t.Helper()
	b := File(t, file)
	var e struct {
		Type string         `json:"type"`
		Data map[string]any `json:"data"`
	}
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	if guid != "" {
		e.Data["guid"] = guid
	}
	if text != "" {
		e.Data["text"] = text
	}
	if sender != "" {
		old := e.Data["handle"].(map[string]any)["address"].(string)
		e.Data["handle"].(map[string]any)["address"] = sender
		for _, c := range e.Data["chats"].([]any) {
			cm := c.(map[string]any)
			cm["guid"] = string(bytes.ReplaceAll([]byte(cm["guid"].(string)), []byte(old), []byte(sender)))
		}
	}
	out, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Server is the fake server.
type Server struct {
	*httptest.Server
	password                                         string
	ping, unauthorized, sendAnswer, typing, attached []byte
	// Down makes every call answer 503 (the Mac asleep).
	Down    atomic.Bool
	refused atomic.Int32

	mu          sync.Mutex
	sends       []map[string]any
	typers      []Typing
	attachments []Attachment
	files       map[string]Download
	downloads   int
}

// Attachment is one attachment send: its form fields and file part.
type Attachment struct {
	ChatGUID, TempGUID, Name string
	FileName, FileType       string
	Data                     []byte
}

// Download is a file the server serves at
// /api/v1/attachment/<guid>/download.
type Download struct {
	MimeType string
	Data     []byte
}

// Typing is one typing indicator call: Method is POST (start) or
// DELETE (stop).
type Typing struct{ Method, Chat string }

// New starts a server with a password until the test ends.
func New(t testing.TB, password string) *Server {
	f := &Server{password: password, ping: File(t, "ping-response.json"),
		unauthorized: File(t, "error-unauthorized.json"), sendAnswer: File(t, "send-text-response.json"),
		typing: File(t, "typing-response.json"), attached: File(t, "send-attachment-response.json"),
		files: map[string]Download{}}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *Server) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if f.Down.Load() {
		if r.URL.Path == "/api/v1/message/text" {
			f.refused.Add(1)
		}
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"status":503,"message":"Server unavailable"}`))
		return
	}
	q := r.URL.Query()
	pw := q.Get("guid")
	for _, alias := range []string{"password", "token"} {
		if pw == "" {
			pw = q.Get(alias)
		}
	}
	if pw != f.password {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write(f.unauthorized)
		return
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/api/v1/ping":
		_, _ = w.Write(f.ping)
	case r.Method == http.MethodPost && r.URL.Path == "/api/v1/message/text":
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body["chatGuid"] == nil || body["message"] == nil {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"status":400,"message":"Bad request","error":{"type":"Validation Error","error":"chatGuid and message are required"}}`))
			return
		}
		f.mu.Lock()
		f.sends = append(f.sends, body)
		f.mu.Unlock()
		var ans map[string]any
		_ = json.Unmarshal(f.sendAnswer, &ans)
		data := ans["data"].(map[string]any)
		data["text"], data["tempGuid"] = body["message"], body["tempGuid"]
		_ = json.NewEncoder(w).Encode(ans)
	case r.Method == http.MethodPost && r.URL.Path == "/api/v1/message/attachment":
		f.attachment(w, r)
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/api/v1/attachment/") && strings.HasSuffix(r.URL.Path, "/download"):
		guid := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/api/v1/attachment/"), "/download")
		f.mu.Lock()
		d, ok := f.files[guid]
		f.downloads++
		f.mu.Unlock()
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"status":404,"message":"Attachment does not exist!"}`))
			return
		}
		w.Header().Set("Content-Type", d.MimeType)
		_, _ = w.Write(d.Data)
	case (r.Method == http.MethodPost || r.Method == http.MethodDelete) &&
		strings.HasPrefix(r.URL.Path, "/api/v1/chat/") && strings.HasSuffix(r.URL.Path, "/typing"):
		chat := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/api/v1/chat/"), "/typing")
		f.mu.Lock()
		f.typers = append(f.typers, Typing{Method: r.Method, Chat: chat})
		f.mu.Unlock()
		_, _ = w.Write(f.typing)
	default:
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"status":404,"message":"Not found"}`))
	}
}

// attachment records an attachment send; chatGuid, tempGuid, name and
// the attachment file are required.
func (f *Server) attachment(w http.ResponseWriter, r *http.Request) {
	bad := func(why string) {
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]any{"status": 400, "message": "Bad request",
			"error": map[string]string{"type": "Validation Error", "error": why}})
	}
	if err := r.ParseMultipartForm(32 << 20); err != nil {
		bad("expected multipart/form-data")
		return
	}
	file, h, err := r.FormFile("attachment")
	if err != nil {
		bad("attachment is required")
		return
	}
	data, _ := io.ReadAll(file)
	a := Attachment{ChatGUID: r.FormValue("chatGuid"), TempGUID: r.FormValue("tempGuid"), Name: r.FormValue("name"),
		FileName: h.Filename, FileType: h.Header.Get("Content-Type"), Data: data}
	if a.ChatGUID == "" || a.TempGUID == "" || a.Name == "" {
		bad("chatGuid, tempGuid and name are required")
		return
	}
	f.mu.Lock()
	f.attachments = append(f.attachments, a)
	f.mu.Unlock()
	var ans map[string]any
	_ = json.Unmarshal(f.attached, &ans)
	ans["data"].(map[string]any)["tempGuid"] = a.TempGUID
	_ = json.NewEncoder(w).Encode(ans)
}

// Attachments returns the attachment sends, in order.
func (f *Server) Attachments() []Attachment {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Attachment(nil), f.attachments...)
}

// Serve makes the server answer a download of attachment guid.
func (f *Server) Serve(guid, mimeType string, data []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.files[guid] = Download{MimeType: mimeType, Data: data}
}

// Downloads counts the download requests.
func (f *Server) Downloads() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.downloads
}

// Sent counts the sends to chat whose message is message ("" for any).
func (f *Server) Sent(chat, message string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, s := range f.sends {
		if s["chatGuid"] == chat && (message == "" || s["message"] == message) {
			n++
		}
	}
	return n
}

// SentContaining counts the sends to chat whose message contains text.
func (f *Server) SentContaining(chat, text string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, s := range f.sends {
		if m, _ := s["message"].(string); s["chatGuid"] == chat && strings.Contains(m, text) {
			n++
		}
	}
	return n
}

// Sends returns the recorded send bodies.
func (f *Server) Sends() []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]map[string]any(nil), f.sends...)
}

// Typings returns the typing indicator calls, in order.
func (f *Server) Typings() []Typing {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Typing(nil), f.typers...)
}

// Refused counts the sends answered 503 while Down.
func (f *Server) Refused() int { return int(f.refused.Load()) }
