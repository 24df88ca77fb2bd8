package telegram

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/go-telegram/bot/models"

	"github.com/switchboard-go/switchboard/internal/attachments"
	"github.com/switchboard-go/switchboard/internal/channels"
)

// fakeFiles is an in-test Bot API serving getFile and the file download
// URL (crabline has no getFile).
type fakeFiles struct {
	token string
	// files maps a file_id to its file_path and bytes; sizes to the
	// file_size getFile reports (default the length).
	files   map[string][]byte
	sizes   map[string]int64
	tooBig  map[string]bool
	broken  bool // the download answers 500
	mu      sync.Mutex
	getFile []string
}

func (f *fakeFiles) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/bot"+f.token+"/getFile":
		var p struct {
			FileID string `json:"file_id"`
		}
		if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/") {
			p.FileID = r.FormValue("file_id")
		} else {
			_ = json.NewDecoder(r.Body).Decode(&p)
		}
		f.mu.Lock()
		f.getFile = append(f.getFile, p.FileID)
		f.mu.Unlock()
		if f.tooBig[p.FileID] {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"ok":false,"error_code":400,"description":"Bad Request: file is too big"}`))
			return
		}
		data, ok := f.files[p.FileID]
		if !ok {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"ok":false,"error_code":400,"description":"Bad Request: invalid file_id"}`))
			return
		}
		size := int64(len(data))
		if s, ok := f.sizes[p.FileID]; ok {
			size = s
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "result": map[string]any{
			"file_id": p.FileID, "file_unique_id": "u" + p.FileID, "file_size": size, "file_path": "docs/" + p.FileID}})
	case strings.HasPrefix(r.URL.Path, "/file/bot"+f.token+"/docs/"):
		if f.broken {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		_, _ = w.Write(f.files[strings.TrimPrefix(r.URL.Path, "/file/bot"+f.token+"/docs/")])
	default:
		http.NotFound(w, r)
	}
}

// mediaAdapter builds an adapter whose Bot API is fake, with limits.
func mediaAdapter(t *testing.T, f *fakeFiles, lim attachments.Limits) (*Adapter, *acct) {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	a, err := New(Options{Raw: map[string]any{"botToken": f.token, "apiRoot": srv.URL}, MediaLimits: lim})
	if err != nil {
		t.Fatal(err)
	}
	return a, a.accounts[0]
}

var (
	pngBytes = append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{1}, 200)...)
	pdfBytes = append([]byte("%PDF-1.7\n"), bytes.Repeat([]byte("x"), 3000)...)
)

func TestFetchMedia(t *testing.T) {
	const token = "123:secret-token"
	lim := attachments.Limits{MaxFiles: 5, MaxFileBytes: 1000, MaxTotalBytes: 4000}
	for _, tt := range []struct {
		name      string
		msg       *models.Message
		files     map[string][]byte
		sizes     map[string]int64
		tooBig    map[string]bool
		wantFiles []string // name=mime
		wantNote  string   // in the text
		noGetFile bool
	}{
		{name: "photo: the largest size within maxFileBytes",
			msg:   &models.Message{Photo: []models.PhotoSize{{FileID: "small", FileUniqueID: "s", FileSize: len(pngBytes)}, {FileID: "big", FileUniqueID: "b", FileSize: 5000}}},
			files: map[string][]byte{"small": pngBytes}, wantFiles: []string{"photo-b.jpg=image/jpeg"}},
		{name: "document with its name and type",
			msg:   &models.Message{Caption: "read this", Document: &models.Document{FileID: "d", FileUniqueID: "ud", FileName: "report.pdf", MimeType: "application/pdf", FileSize: 500}},
			files: map[string][]byte{"d": pdfBytes[:500]}, wantFiles: []string{"report.pdf=application/pdf"}},
		{name: "oversize document refused before getFile",
			msg:   &models.Message{Document: &models.Document{FileID: "d", FileName: "big.pdf", FileSize: 3000}},
			files: map[string][]byte{"d": pdfBytes}, wantNote: "[media not attached: big.pdf (3000 bytes, over maxFileBytes 1000)]", noGetFile: true},
		{name: "a size getFile did not tell is refused while reading",
			msg:   &models.Message{Document: &models.Document{FileID: "d", FileName: "quiet.pdf"}},
			files: map[string][]byte{"d": pdfBytes}, sizes: map[string]int64{"d": 0}, wantNote: "[media not attached: quiet.pdf (over the 1000 bytes allowed)]"},
		{name: "Telegram refuses the file",
			msg:    &models.Message{Document: &models.Document{FileID: "d", FileName: "huge.mkv"}},
			tooBig: map[string]bool{"d": true}, wantNote: "[media not attached: huge.mkv (telegram getFile: "},
		{name: "a hostile file name is made safe",
			msg:   &models.Message{Document: &models.Document{FileID: "d", FileName: "../../etc/passwd\u202e]", FileSize: 10}},
			files: map[string][]byte{"d": []byte("root:x:0:0")}, wantFiles: []string{".._.._etc_passwd__=text/plain"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeFiles{token: token, files: tt.files, sizes: tt.sizes, tooBig: tt.tooBig}
			a, x := mediaAdapter(t, f, lim)
			in := channels.Inbound{Text: tt.msg.Caption}
			if _, err := a.fetchMedia(context.Background(), x, tt.msg, &in); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, file := range in.Files {
				mime := file.MimeType
				if mime == "" {
					mime = "text/plain"
				}
				got = append(got, file.Name+"="+mime)
				if err := attachments.Check([]attachments.File{file}, lim); err != nil {
					t.Errorf("file %q does not pass the attachments check: %v", file.Name, err)
				}
			}
			if strings.Join(got, ",") != strings.Join(tt.wantFiles, ",") {
				t.Errorf("files %v, want %v", got, tt.wantFiles)
			}
			if tt.wantNote != "" && !strings.Contains(in.Text, tt.wantNote) {
				t.Errorf("text %q lacks %q", in.Text, tt.wantNote)
			}
			if strings.Contains(in.Text, token) {
				t.Errorf("the token leaked into the text: %q", in.Text)
			}
			if tt.msg.Caption != "" && !strings.HasPrefix(in.Text, tt.msg.Caption) {
				t.Errorf("the caption is not the text: %q", in.Text)
			}
			if tt.noGetFile && len(f.getFile) > 0 {
				t.Errorf("getFile called for %v", f.getFile)
			}
		})
	}
}

func TestFetchMediaTransient(t *testing.T) {
	const token = "123:secret-token"
	f := &fakeFiles{token: token, files: map[string][]byte{"d": []byte("hello")}, broken: true}
	a, x := mediaAdapter(t, f, attachments.Limits{})
	in := channels.Inbound{}
	_, err := a.fetchMedia(context.Background(), x, &models.Message{Document: &models.Document{FileID: "d", FileName: "a.txt"}}, &in)
	if err == nil || len(in.Files) != 0 {
		t.Fatalf("a download answered 500: err %v, files %d; want an error so the update is offered again", err, len(in.Files))
	}
	if strings.Contains(err.Error(), token) {
		t.Errorf("the token leaked into the error: %v", err)
	}
}

func TestPhotoWithoutCaptionIsAMessage(t *testing.T) {
	u := models.Update{ID: 3, Message: &models.Message{ID: 4, Chat: models.Chat{ID: 7, Type: models.ChatTypePrivate},
		From: &models.User{ID: 7}, Photo: []models.PhotoSize{{FileID: "p"}}}}
	if _, ok := toInbound("default", me, u); !ok {
		t.Fatal("a photo without a caption was dropped")
	}
	u.Message.Photo = nil
	if _, ok := toInbound("default", me, u); ok {
		t.Fatal("a message with neither text nor media was taken")
	}
}
