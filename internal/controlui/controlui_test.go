package controlui

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNormalizeBasePath(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"", DefaultBasePath, ""},
		{"/openclaw", "/openclaw", ""},
		{"openclaw/", "/openclaw", ""},
		{"/ui/claw", "/ui/claw", ""},
		{"/", "", "taken by switchboard's own web UI"},
		{"/api", "", "is a route of the gateway"},
		{"/mcp/x", "", "is a route of the gateway"},
		{"/a/../b", "", "must be a plain URL path"},
		{"/a b", "", "must be a plain URL path"},
	} {
		got, err := NormalizeBasePath(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("NormalizeBasePath(%q) = %q, %v; want error %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("NormalizeBasePath(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestNewRefusesADirectoryWithoutABuild(t *testing.T) {
	_, err := New(Options{Root: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "holds no Control UI build") {
		t.Fatalf("New = %v", err)
	}
}

func TestServe(t *testing.T) {
	root := t.TempDir()
	write := func(name, body string) {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("index.html", `<!doctype html><html lang="en"><head><link rel="icon" href="./favicon.svg"><script src="./assets/index-1.js"></script></head></html>`)
	write("assets/index-1.js", "console.log(1)")
	write("favicon.svg", "<svg/>")
	h, err := New(Options{Root: root, BasePath: "/claw", ServerVersion: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path   string
		status int
		want   string
	}{
		{"/claw/", 200, `<html data-openclaw-control-ui-base-path="/claw" lang="en">`},
		{"/claw/", 200, `src="/claw/assets/index-1.js"`},
		{"/claw/", 200, `href="/claw/favicon.svg"`},
		{"/claw/chat/some-session", 200, `data-openclaw-control-ui-base-path="/claw"`},
		{"/claw/assets/index-1.js", 200, "console.log(1)"},
		{"/claw/chat/assets/index-1.js", 200, "console.log(1)"},
		{"/claw/favicon.svg", 200, "<svg/>"},
		{"/claw/control-ui-config.json", 200, `"basePath":"/claw"`},
		{"/claw/__openclaw/control-ui-config.json", 200, `"serverVersion":"v1"`},
		{"/claw/assets/missing.js", 404, ""},
		{"/claw/../../etc/passwd.js", 404, ""},
		{"/claw", 302, ""},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tc.path, nil))
		body, _ := io.ReadAll(rec.Body)
		if rec.Code != tc.status || !strings.Contains(string(body), tc.want) {
			t.Errorf("GET %s = %d %.200q; want %d with %q", tc.path, rec.Code, body, tc.status, tc.want)
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/claw/", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST = %d", rec.Code)
	}
	for p, want := range map[string]bool{"/claw": true, "/claw/x": true, "/clawx": false, "/": false} {
		if h.Owns(p) != want {
			t.Errorf("Owns(%q) = %v", p, !want)
		}
	}
}
