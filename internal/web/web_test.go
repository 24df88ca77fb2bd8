package web

import (
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"path"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
)

func get(t *testing.T, h http.Handler, method, target string, hdr map[string]string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

func body(t *testing.T, res *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func testHandler(t *testing.T) *handler {
	t.Helper()
	h, err := newHandler(files)
	if err != nil {
		t.Fatalf("embedded UI does not build a handler: %v", err)
	}
	return h
}

func TestIndex(t *testing.T) {
	h := testHandler(t)
	for _, p := range []string{"/", "/index.html"} {
		res := get(t, h, "GET", p, nil)
		if res.StatusCode != 200 {
			t.Fatalf("GET %s: status %d", p, res.StatusCode)
		}
		if ct := res.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
			t.Errorf("GET %s: Content-Type %q", p, ct)
		}
		if cc := res.Header.Get("Cache-Control"); cc != "no-cache" {
			t.Errorf("GET %s: Cache-Control %q, want no-cache so a new binary's page is seen at once", p, cc)
		}
		for _, hd := range []string{"Content-Security-Policy", "X-Content-Type-Options", "X-Frame-Options", "Referrer-Policy"} {
			if res.Header.Get(hd) == "" {
				t.Errorf("GET %s: no %s header", p, hd)
			}
		}
		b := body(t, res)
		if strings.Contains(b, baseMarker) {
			t.Errorf("GET %s: asset marker left in the page", p)
		}
		if !strings.Contains(b, `src="assets/`+h.version+`/js/app.js"`) {
			t.Errorf("GET %s: page does not load the versioned app.js:\n%s", p, b)
		}
	}
}

// TestPageAssetsResolve follows every href/src of the page and every
// relative import of every module, so a renamed file or a typo in an import
// fails here rather than as a blank page in a browser.
func TestPageAssetsResolve(t *testing.T) {
	h := testHandler(t)
	page := body(t, get(t, h, "GET", "/", nil))
	refs := regexp.MustCompile(`(?:href|src)="(assets/[^"]+)"`).FindAllStringSubmatch(page, -1)
	if len(refs) < 3 {
		t.Fatalf("page references %d assets, want the icon, stylesheet and app module", len(refs))
	}
	importRe := regexp.MustCompile(`(?m)(?:^import\s[^'"]*|^export\s[^'"]*\sfrom\s|import\()\s*['"](\.{1,2}/[^'"]+)['"]`)
	seen := map[string]bool{}
	queue := []string{}
	for _, r := range refs {
		queue = append(queue, "/"+r[1])
	}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if seen[p] {
			continue
		}
		seen[p] = true
		res := get(t, h, "GET", p, nil)
		if res.StatusCode != 200 {
			t.Errorf("GET %s: status %d", p, res.StatusCode)
			continue
		}
		if !strings.HasSuffix(p, ".js") {
			continue
		}
		for _, m := range importRe.FindAllStringSubmatch(body(t, res), -1) {
			queue = append(queue, path.Join(path.Dir(p), m[1]))
		}
	}
	for _, want := range []string{"app.js", "gateway.js", "views/sessions.js", "views/session.js", "views/tree.js", "views/runs.js"} {
		if !seen["/assets/"+h.version+"/js/"+want] {
			t.Errorf("module %s is not reachable from the page", want)
		}
	}
}

func TestAssetHeaders(t *testing.T) {
	h := testHandler(t)
	want := map[string]string{
		".js":  "text/javascript; charset=utf-8",
		".css": "text/css; charset=utf-8",
		".svg": "image/svg+xml",
	}
	n := 0
	err := fs.WalkDir(files, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, "index.html") {
			return err
		}
		n++
		name := strings.TrimPrefix(p, "static/")
		res := get(t, h, "GET", "/assets/"+h.version+"/"+name, nil)
		if res.StatusCode != 200 {
			t.Errorf("%s: status %d", name, res.StatusCode)
			return nil
		}
		if ct := res.Header.Get("Content-Type"); ct != want[path.Ext(name)] {
			t.Errorf("%s: Content-Type %q, want %q", name, ct, want[path.Ext(name)])
		}
		if cc := res.Header.Get("Cache-Control"); !strings.Contains(cc, "immutable") {
			t.Errorf("%s: Cache-Control %q, want a long immutable cache for versioned assets", name, cc)
		}
		if res.Header.Get("ETag") == "" {
			t.Errorf("%s: no ETag", name)
		}
		if res.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: no nosniff", name)
		}
		raw, _ := fs.ReadFile(files, p)
		if got := body(t, res); got != string(raw) {
			t.Errorf("%s: body differs from the embedded file", name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 8 {
		t.Fatalf("only %d embedded assets; the UI is missing files", n)
	}
}

func TestRequests(t *testing.T) {
	h := testHandler(t)
	v := h.version
	tests := []struct {
		name       string
		method     string
		target     string
		hdr        map[string]string
		wantStatus int
		check      func(t *testing.T, res *http.Response)
	}{
		{name: "unknown path", method: "GET", target: "/nope", wantStatus: 404},
		{name: "missing asset", method: "GET", target: "/assets/" + v + "/js/nope.js", wantStatus: 404},
		{name: "asset without version", method: "GET", target: "/assets/style.css", wantStatus: 404},
		{name: "dot-dot", method: "GET", target: "/assets/" + v + "/../web.go", wantStatus: 404},
		{name: "post", method: "POST", target: "/", wantStatus: 405, check: func(t *testing.T, res *http.Response) {
			if res.Header.Get("Allow") != "GET, HEAD" {
				t.Errorf("Allow = %q", res.Header.Get("Allow"))
			}
		}},
		{name: "head", method: "HEAD", target: "/", wantStatus: 200, check: func(t *testing.T, res *http.Response) {
			if b := body(t, res); b != "" {
				t.Errorf("HEAD sent a body of %d bytes", len(b))
			}
			if res.Header.Get("Content-Length") == "0" || res.Header.Get("Content-Length") == "" {
				t.Errorf("HEAD Content-Length = %q", res.Header.Get("Content-Length"))
			}
		}},
		{name: "old version is served but not cached", method: "GET", target: "/assets/0000000000000000/style.css", wantStatus: 200,
			check: func(t *testing.T, res *http.Response) {
				if cc := res.Header.Get("Cache-Control"); cc != "no-cache" {
					t.Errorf("Cache-Control %q", cc)
				}
			}},
		{name: "favicon", method: "GET", target: "/favicon.ico", wantStatus: 200, check: func(t *testing.T, res *http.Response) {
			if ct := res.Header.Get("Content-Type"); ct != "image/svg+xml" {
				t.Errorf("Content-Type %q", ct)
			}
		}},
		{name: "etag match", method: "GET", target: "/assets/" + v + "/style.css",
			hdr: map[string]string{"If-None-Match": h.assets["style.css"].etag}, wantStatus: 304},
		{name: "weak etag match on the page", method: "GET", target: "/",
			hdr: map[string]string{"If-None-Match": `"x", W/` + h.index.etag}, wantStatus: 304},
		{name: "etag mismatch", method: "GET", target: "/assets/" + v + "/style.css",
			hdr: map[string]string{"If-None-Match": `"other"`}, wantStatus: 200},
		{name: "gzip", method: "GET", target: "/assets/" + v + "/js/gateway.js",
			hdr: map[string]string{"Accept-Encoding": "br, gzip"}, wantStatus: 200, check: func(t *testing.T, res *http.Response) {
				if res.Header.Get("Content-Encoding") != "gzip" {
					t.Fatalf("Content-Encoding %q, want gzip", res.Header.Get("Content-Encoding"))
				}
				if !strings.Contains(res.Header.Get("Vary"), "Accept-Encoding") {
					t.Errorf("Vary %q", res.Header.Get("Vary"))
				}
				zr, err := gzip.NewReader(res.Body)
				if err != nil {
					t.Fatal(err)
				}
				got, err := io.ReadAll(zr)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, h.assets["js/gateway.js"].body) {
					t.Error("gzip body does not decompress to the file")
				}
			}},
		{name: "gzip refused", method: "GET", target: "/assets/" + v + "/js/gateway.js",
			hdr: map[string]string{"Accept-Encoding": "gzip;q=0"}, wantStatus: 200, check: func(t *testing.T, res *http.Response) {
				if res.Header.Get("Content-Encoding") != "" {
					t.Errorf("Content-Encoding %q with gzip refused", res.Header.Get("Content-Encoding"))
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := get(t, h, tt.method, tt.target, tt.hdr)
			if res.StatusCode != tt.wantStatus {
				t.Fatalf("%s %s: status %d, want %d", tt.method, tt.target, res.StatusCode, tt.wantStatus)
			}
			if tt.check != nil {
				tt.check(t, res)
			}
		})
	}
}

func TestAcceptsGzip(t *testing.T) {
	tests := []struct {
		header string
		want   bool
	}{
		{"", false},
		{"gzip", true},
		{"GZIP", true},
		{"deflate, gzip;q=0.5", true},
		{"gzip;q=0", false},
		{"gzip; q=0.000", false},
		{"gzip;q=0.001", true},
		{"br", false},
		{"gzip;q=x", false},
	}
	for _, tt := range tests {
		if got := acceptsGzip(tt.header); got != tt.want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", tt.header, got, tt.want)
		}
	}
}

func TestEtagMatch(t *testing.T) {
	tests := []struct {
		header string
		want   bool
	}{
		{"", false},
		{`"a"`, true},
		{`W/"a"`, true},
		{`"b", "a"`, true},
		{`*`, true},
		{`"b"`, false},
	}
	for _, tt := range tests {
		if got := etagMatch(tt.header, `"a"`); got != tt.want {
			t.Errorf("etagMatch(%q) = %v, want %v", tt.header, got, tt.want)
		}
	}
}

func TestNewHandlerErrors(t *testing.T) {
	tests := []struct {
		name string
		fsys fstest.MapFS
		want string
	}{
		{"no index", fstest.MapFS{"static/app.js": {Data: []byte("x")}}, "index.html missing"},
		{"unknown extension", fstest.MapFS{"static/index.html": {Data: []byte("x")}, "static/data.bin": {Data: []byte("x")}}, "data.bin"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := newHandler(tt.fsys)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one naming %q", err, tt.want)
			}
		})
	}
}

func TestVersionChangesWithContent(t *testing.T) {
	a, err := newHandler(fstest.MapFS{"static/index.html": {Data: []byte("{{ASSETS}}")}, "static/a.js": {Data: []byte("1")}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := newHandler(fstest.MapFS{"static/index.html": {Data: []byte("{{ASSETS}}")}, "static/a.js": {Data: []byte("2")}})
	if err != nil {
		t.Fatal(err)
	}
	if a.version == b.version {
		t.Fatal("changing a file did not change the asset version, so browsers would keep the old file")
	}
	if got := string(a.index.body); got != "assets/"+a.version {
		t.Errorf("index = %q", got)
	}
}

func TestHandlerServes(t *testing.T) {
	res := get(t, Handler(), "GET", "/", nil)
	if res.StatusCode != 200 {
		t.Fatalf("Handler() GET / = %d", res.StatusCode)
	}
}
