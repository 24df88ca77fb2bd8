package channels

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/attachments"
)

func TestFetch(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
			_, _ = w.Write([]byte("12345"))
		case "/long":
			w.Header().Set("Content-Length", "100")
			_, _ = w.Write(make([]byte, 100))
		case "/down":
			w.WriteHeader(http.StatusBadGateway)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	if b, err := Fetch(ctx, srv.Client(), srv.URL+"/ok", 5); err != nil || string(b) != "12345" {
		t.Errorf("a file at the limit: %q, %v", b, err)
	}
	for _, tt := range []struct {
		path    string
		refused bool
	}{{"/long", true}, {"/missing", true}, {"/down", false}} {
		_, err := Fetch(ctx, srv.Client(), srv.URL+tt.path+"?token=bot123:secret", 10)
		if err == nil || errors.Is(err, ErrMediaRefused) != tt.refused {
			t.Errorf("%s: %v, want refused=%v", tt.path, err, tt.refused)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: the URL leaked into %v", tt.path, err)
		}
	}
	srv.Close()
	if _, err := Fetch(ctx, srv.Client(), srv.URL+"/ok?bot123:secret", 10); err == nil || errors.Is(err, ErrMediaRefused) || strings.Contains(err.Error(), "secret") {
		t.Errorf("a server that is down: %v, want a transient error without the URL", err)
	}
}

func TestMediaLimits(t *testing.T) {
	m := NewMedia(attachments.Limits{MaxFiles: 2, MaxFileBytes: 10, MaxTotalBytes: 15})
	m.Add("a.txt", "text/plain", make([]byte, 10))
	if err := m.Check(6); err == nil || !strings.Contains(err.Error(), "over the 5 bytes left of maxTotalBytes 15") {
		t.Errorf("the total: %v", err)
	}
	m.Add("a.txt", "text/plain", make([]byte, 5))
	if _, err := m.Room(); err == nil || !strings.Contains(err.Error(), "more than 2 files") {
		t.Errorf("the count: %v", err)
	}
	m.Refuse("c.bin", refusedf("more than 2 files (maxFiles)"))
	in := Inbound{Text: "hi"}
	m.Apply(&in)
	if len(in.Files) != 2 || in.Files[1].Name != "2-a.txt" || in.Text != "hi\n[media not attached: c.bin (more than 2 files (maxFiles))]" {
		t.Errorf("applied: %+v", in)
	}
	if err := attachments.Check(in.Files, attachments.Limits{MaxFiles: 2, MaxFileBytes: 10, MaxTotalBytes: 15}); err != nil {
		t.Errorf("what Media admits, the engine must admit: %v", err)
	}
}

// Whatever name a sender gives a file, the name it is kept under passes
// the attachments layer's check.
func FuzzSafeFileName(f *testing.F) {
	for _, s := range []string{"report.pdf", "../../etc/passwd", "a\u202eb", "", " . ", "\xff\xfe", ".manifest.json", strings.Repeat("é", 300)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		safe := SafeFileName(name)
		if err := attachments.Check([]attachments.File{{Name: safe}}, attachments.Limits{}); err != nil {
			t.Fatalf("SafeFileName(%q) = %q: %v", name, safe, err)
		}
	})
}
