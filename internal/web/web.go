// Package web is switchboard's browser UI: plain HTML, CSS and JavaScript
// modules embedded in the binary and served by the gateway at `/`. The page
// talks to the gateway's WebSocket protocol (live events and calls) and its
// HTTP JSON API; nothing is built or downloaded at run time.
package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"
)

// files holds the UI. The embed.FS is read-only, so this is not mutable
// package state.
//
//go:embed static
var files embed.FS

// assetPrefix is where versioned assets are served: /assets/<version>/<file>.
const assetPrefix = "/assets/"

// baseMarker in index.html is replaced by the versioned asset directory, so
// a new binary's assets never mix with a browser's cached old ones.
const baseMarker = "{{ASSETS}}"

// Handler serves the embedded UI: index.html at `/` (never cached, so a new
// binary's page is picked up at once) and every other file under
// /assets/<version>/ (cached for a year: the version is a hash of all the
// files, so it changes whenever any of them does). Routing inside the app is
// by URL hash (#/sessions, #/session/<key>, #/tree/<key>, #/runs), so the
// server only ever serves `/`.
func Handler() http.Handler {
	h, err := newHandler(files)
	if err != nil {
		// The files are compiled in, so this means the binary itself is
		// broken (tests catch it); say so rather than serve half a UI.
		msg := fmt.Sprintf("web UI unavailable: %v", err)
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, msg, http.StatusInternalServerError)
		})
	}
	return h
}

// asset is one file ready to serve.
type asset struct {
	body  []byte
	gzip  []byte // nil when compressing does not pay
	ctype string
	etag  string
}

type handler struct {
	version string
	index   asset
	assets  map[string]asset // by path relative to static/
}

func newHandler(fsys fs.FS) (*handler, error) {
	root, err := fs.Sub(fsys, "static")
	if err != nil {
		return nil, err
	}
	h := &handler{assets: map[string]asset{}}
	sum := sha256.New()
	var indexSrc []byte
	err = fs.WalkDir(root, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(root, p)
		if err != nil {
			return err
		}
		fmt.Fprintf(sum, "%s\x00%d\x00", p, len(b))
		sum.Write(b)
		if p == "index.html" {
			indexSrc = b
			return nil
		}
		ctype, ok := contentType(p)
		if !ok {
			return fmt.Errorf("%s: no content type for this extension", p)
		}
		h.assets[p] = newAsset(b, ctype)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if indexSrc == nil {
		return nil, fmt.Errorf("index.html missing")
	}
	h.version = hex.EncodeToString(sum.Sum(nil))[:16]
	index := bytes.ReplaceAll(indexSrc, []byte(baseMarker), []byte("assets/"+h.version))
	h.index = newAsset(index, "text/html; charset=utf-8")
	return h, nil
}

func newAsset(b []byte, ctype string) asset {
	a := asset{body: b, ctype: ctype}
	d := sha256.Sum256(b)
	a.etag = `"` + hex.EncodeToString(d[:8]) + `"`
	if compressible(ctype) && len(b) > 512 {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		_, _ = zw.Write(b)
		_ = zw.Close()
		if buf.Len() < len(b) {
			a.gzip = buf.Bytes()
		}
	}
	return a
}

// contentType maps the extensions the UI uses; anything else is a mistake
// caught when the handler is built.
func contentType(p string) (string, bool) {
	switch path.Ext(p) {
	case ".html":
		return "text/html; charset=utf-8", true
	case ".js", ".mjs":
		return "text/javascript; charset=utf-8", true
	case ".css":
		return "text/css; charset=utf-8", true
	case ".svg":
		return "image/svg+xml", true
	case ".json":
		return "application/json", true
	case ".png":
		return "image/png", true
	}
	return "", false
}

func compressible(ctype string) bool {
	return strings.HasPrefix(ctype, "text/") || ctype == "image/svg+xml" || ctype == "application/json"
}

// csp allows only the page's own scripts, styles and connections (the
// WebSocket and HTTP API are same-origin).
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	hdr := w.Header()
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Referrer-Policy", "no-referrer")
	p := r.URL.Path
	switch {
	case p == "/" || p == "/index.html":
		hdr.Set("Content-Security-Policy", csp)
		hdr.Set("X-Frame-Options", "DENY")
		hdr.Set("Cache-Control", "no-cache")
		h.serve(w, r, h.index)
	case p == "/favicon.ico":
		// Browsers ask for it before reading <link rel=icon>; send the SVG.
		hdr.Set("Cache-Control", "public, max-age=86400")
		h.serve(w, r, h.assets["favicon.svg"])
	case strings.HasPrefix(p, assetPrefix):
		version, name, ok := strings.Cut(strings.TrimPrefix(p, assetPrefix), "/")
		a, found := h.assets[name]
		if !ok || !found || strings.Contains(name, "..") {
			http.NotFound(w, r)
			return
		}
		if version == h.version {
			hdr.Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			// A page from an older binary still gets today's file, but
			// must not keep it under the old version's name.
			hdr.Set("Cache-Control", "no-cache")
		}
		h.serve(w, r, a)
	default:
		http.NotFound(w, r)
	}
}

func (h *handler) serve(w http.ResponseWriter, r *http.Request, a asset) {
	hdr := w.Header()
	hdr.Set("Content-Type", a.ctype)
	hdr.Set("ETag", a.etag)
	if a.gzip != nil {
		hdr.Add("Vary", "Accept-Encoding")
	}
	if etagMatch(r.Header.Get("If-None-Match"), a.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := a.body
	if a.gzip != nil && acceptsGzip(r.Header.Get("Accept-Encoding")) {
		hdr.Set("Content-Encoding", "gzip")
		body = a.gzip
	}
	hdr.Set("Content-Length", fmt.Sprint(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// etagMatch reports whether an If-None-Match header names etag (weak
// comparison, as RFC 9110 asks for If-None-Match).
func etagMatch(header, etag string) bool {
	if header == "" {
		return false
	}
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == etag {
			return true
		}
	}
	return false
}

// acceptsGzip reports whether an Accept-Encoding header allows gzip (and
// does not refuse it with q=0).
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(name), "gzip") {
			continue
		}
		q, ok := strings.CutPrefix(strings.ReplaceAll(params, " ", ""), "q=")
		if !ok {
			return true
		}
		v, err := strconv.ParseFloat(q, 64)
		return err == nil && v > 0
	}
	return false
}
