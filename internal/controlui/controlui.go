// Package controlui serves OpenClaw's own Control UI (the static build
// OpenClaw's npm package ships in dist/control-ui) from a directory the
// user names (gateway.controlUi.root), under a URL prefix
// (gateway.controlUi.basePath). The UI is a single-page app that talks to
// the gateway's WebSocket protocol; this package only hands it its files,
// the bootstrap config it asks for first, and the base path it reads from
// the <html> element.
package controlui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// DefaultBasePath is where the Control UI is served when
// gateway.controlUi.basePath is empty. OpenClaw serves it at `/`;
// switchboard's own web UI is there, so OpenClaw's moves under a prefix.
const DefaultBasePath = "/openclaw"

// configFile is the bootstrap config the UI fetches before connecting
// (OpenClaw's path, relative to the base path).
const configFile = "/control-ui-config.json"

// Legacy and namespaced spellings of the same bootstrap config that
// OpenClaw still answers, so older bundles keep working.
const (
	legacyConfigFile = "/__openclaw" + configFile
	namespacePrefix  = "/__openclaw__/"
)

// basePathAttr is the <html> attribute the UI reads its base path from.
const basePathAttr = "data-openclaw-control-ui-base-path"

// Options configure a Handler.
type Options struct {
	// Root is the directory holding the build (its index.html and assets/).
	Root string
	// BasePath is the URL prefix ("/openclaw"); empty means DefaultBasePath.
	BasePath string
	// AssistantName and ServerVersion go into the bootstrap config.
	AssistantName string
	ServerVersion string
}

// Handler serves one Control UI build. Build it with New.
type Handler struct {
	root     string
	fsys     fs.FS
	basePath string
	index    []byte // index.html with the base path applied
	config   []byte // the bootstrap config, JSON
	modTime  time.Time
}

// New checks that Root holds a Control UI build and prepares its index.
func New(opts Options) (*Handler, error) {
	if opts.Root == "" {
		return nil, errors.New("gateway.controlUi.root is empty")
	}
	bp, err := NormalizeBasePath(opts.BasePath)
	if err != nil {
		return nil, err
	}
	root, err := filepath.Abs(opts.Root)
	if err != nil {
		return nil, fmt.Errorf("gateway.controlUi.root: %w", err)
	}
	st, err := os.Stat(filepath.Join(root, "index.html"))
	if err != nil {
		return nil, fmt.Errorf("gateway.controlUi.root %q holds no Control UI build (index.html): %w", opts.Root, err)
	}
	src, err := os.ReadFile(filepath.Join(root, "index.html"))
	if err != nil {
		return nil, fmt.Errorf("gateway.controlUi.root: %w", err)
	}
	name := opts.AssistantName
	if name == "" {
		name = "Assistant"
	}
	cfg, err := json.Marshal(bootstrapConfig{BasePath: bp, AssistantName: name, ServerVersion: opts.ServerVersion,
		EmbedSandbox: "scripts", AutomaticallyFetchFavicons: false, CommunityInvite: false,
		PluginFrameGrants: []any{}})
	if err != nil {
		return nil, err
	}
	return &Handler{root: root, fsys: os.DirFS(root), basePath: bp, index: prepareIndex(src, bp), config: cfg,
		modTime: st.ModTime()}, nil
}

// bootstrapConfig is the part of OpenClaw's bootstrap config switchboard
// can answer truthfully; the UI treats every other field as absent.
type bootstrapConfig struct {
	BasePath                   string `json:"basePath"`
	AssistantName              string `json:"assistantName"`
	ServerVersion              string `json:"serverVersion,omitempty"`
	EmbedSandbox               string `json:"embedSandbox"`
	AllowExternalEmbedUrls     bool   `json:"allowExternalEmbedUrls"`
	AutomaticallyFetchFavicons bool   `json:"automaticallyFetchFavicons"`
	CommunityInvite            bool   `json:"communityInvite"`
	TerminalEnabled            bool   `json:"terminalEnabled"`
	CliAgentsEnabled           bool   `json:"cliAgentsEnabled"`
	PluginAssetsRequireAuth    bool   `json:"pluginAssetsRequireAuth"`
	PluginFrameGrants          []any  `json:"pluginFrameGrants"`
}

// NormalizeBasePath turns gateway.controlUi.basePath into "/prefix" form
// (no trailing slash); empty gives DefaultBasePath. The root "/" is
// refused: switchboard's own UI is served there.
func NormalizeBasePath(p string) (string, error) {
	p = strings.TrimSpace(p)
	if p == "" {
		return DefaultBasePath, nil
	}
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	p = strings.TrimRight(p, "/")
	switch {
	case p == "":
		return "", errors.New("gateway.controlUi.basePath \"/\" is taken by switchboard's own web UI (use a prefix such as /openclaw)")
	case path.Clean(p) != p || strings.ContainsAny(p, "?#%\\ \"<>"):
		return "", fmt.Errorf("gateway.controlUi.basePath %q must be a plain URL path such as /openclaw", p)
	case p == "/api" || strings.HasPrefix(p, "/api/") || p == "/mcp" || strings.HasPrefix(p, "/mcp/") ||
		p == "/a2a" || strings.HasPrefix(p, "/a2a/") || p == "/assets" || p == "/metrics" || p == "/healthz":
		return "", fmt.Errorf("gateway.controlUi.basePath %q is a route of the gateway", p)
	}
	return p, nil
}

// BasePath is the prefix the UI is served under.
func (h *Handler) BasePath() string { return h.basePath }

// Owns reports whether a request path belongs to the Control UI.
func (h *Handler) Owns(p string) bool {
	return p == h.basePath || strings.HasPrefix(p, h.basePath+"/")
}

// IsSocket reports whether p is where the UI opens its WebSocket (its base
// path, with or without the trailing slash).
func (h *Handler) IsSocket(p string) bool {
	return p == h.basePath || p == h.basePath+"/"
}

var assetHref = regexp.MustCompile(`(src|href)="\.?/(assets/|favicon|apple-touch-icon|manifest)`)

// prepareIndex points the page's relative asset links at the base path and
// tells the app its base path on <html>, as OpenClaw's gateway does.
func prepareIndex(src []byte, bp string) []byte {
	out := assetHref.ReplaceAll(src, []byte(`$1="`+bp+`/$2`))
	attr := ` ` + basePathAttr + `="` + html.EscapeString(bp) + `"`
	if i := bytes.Index(out, []byte("<html")); i >= 0 {
		j := i + len("<html")
		out = append(out[:j:j], append([]byte(attr), out[j:]...)...)
	}
	return out
}

// staticExt are extensions never answered with the app's index: a missing
// script or image is a 404, not a page.
var staticExt = map[string]bool{".js": true, ".mjs": true, ".css": true, ".map": true, ".png": true, ".jpg": true,
	".jpeg": true, ".gif": true, ".webp": true, ".svg": true, ".ico": true, ".woff": true, ".woff2": true, ".ttf": true,
	".json": true, ".webmanifest": true, ".txt": true, ".wasm": true, ".br": true, ".gz": true}

// ServeHTTP serves a path Owns accepted.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	hdr := w.Header()
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Referrer-Policy", "no-referrer")
	hdr.Set("X-Frame-Options", "DENY")
	p := r.URL.Path
	if p == h.basePath {
		http.Redirect(w, r, h.basePath+"/", http.StatusFound)
		return
	}
	rel := strings.TrimPrefix(p, h.basePath)
	switch rel {
	case configFile, legacyConfigFile, namespacePrefix + strings.TrimPrefix(configFile, "/"):
		hdr.Set("Content-Type", "application/json; charset=utf-8")
		hdr.Set("Cache-Control", "no-cache")
		_, _ = w.Write(h.config)
		return
	}
	rel = strings.TrimPrefix(rel, "/")
	// Assets are asked for relative to deep links (/openclaw/chat/assets/x.js).
	if i := strings.Index(rel, "assets/"); i > 0 && rel[i-1] == '/' {
		rel = rel[i:]
	}
	rel = strings.TrimPrefix(rel, strings.TrimPrefix(namespacePrefix, "/"))
	if rel == "" || rel == "index.html" {
		h.serveIndex(w, r)
		return
	}
	if !fs.ValidPath(rel) {
		http.NotFound(w, r)
		return
	}
	f, err := h.fsys.Open(rel)
	if err == nil {
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			if rs, ok := f.(io.ReadSeeker); ok {
				if ct := mime.TypeByExtension(path.Ext(rel)); ct != "" {
					hdr.Set("Content-Type", ct)
				} else if path.Ext(rel) == ".webmanifest" {
					hdr.Set("Content-Type", "application/manifest+json")
				}
				if strings.HasPrefix(rel, "assets/") {
					hdr.Set("Cache-Control", "public, max-age=31536000, immutable")
				} else {
					hdr.Set("Cache-Control", "no-cache")
				}
				http.ServeContent(w, r, rel, st.ModTime(), rs)
				return
			}
		}
	}
	if staticExt[strings.ToLower(path.Ext(rel))] {
		http.NotFound(w, r)
		return
	}
	// A route inside the app (/openclaw/chat, /openclaw/sessions/...).
	h.serveIndex(w, r)
}

func (h *Handler) serveIndex(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	http.ServeContent(w, r, "index.html", h.modTime, bytes.NewReader(h.index))
}
