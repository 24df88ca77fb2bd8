package attachments

import (
	"encoding/base64"
	"strings"

	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/textcheck"
)

// Default limits of tools.sessions_spawn.attachments.
const (
	DefaultMaxFiles      = 50
	DefaultMaxFileBytes  = 1 << 20
	DefaultMaxTotalBytes = 5 << 20
)

// maxNameBytes bounds a file name; longer names fail on most file systems.
const maxNameBytes = 255

// manifestName is the manifest file written beside the attachments; no
// attachment may take its name.
const manifestName = ".manifest.json"

// Encodings of Spec.Encoding.
const (
	EncodingUTF8   = "utf8"
	EncodingBase64 = "base64"
)

// Spec is one inline file of sessions_spawn's attachments parameter.
type Spec struct {
	Name     string `json:"name"`
	Content  string `json:"content"`
	Encoding string `json:"encoding,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
}

// Limits bound the attachments of one spawn.
type Limits struct {
	MaxFiles      int
	MaxFileBytes  int64
	MaxTotalBytes int64
}

// LimitsFromConfig returns the limits of c, with the defaults for unset
// (zero or negative) values.
func LimitsFromConfig(c config.AttachmentsConfig) Limits {
	l := Limits{MaxFiles: c.MaxFiles, MaxFileBytes: c.MaxFileBytes, MaxTotalBytes: c.MaxTotalBytes}
	return l.withDefaults()
}

// WithDefaults returns l with the defaults for unset fields.
func (l Limits) WithDefaults() Limits { return l.withDefaults() }

func (l Limits) withDefaults() Limits {
	if l.MaxFiles <= 0 {
		l.MaxFiles = DefaultMaxFiles
	}
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = DefaultMaxFileBytes
	}
	if l.MaxTotalBytes <= 0 {
		l.MaxTotalBytes = DefaultMaxTotalBytes
	}
	return l
}

// File is a decoded attachment ready to be written.
type File struct {
	Name     string
	Data     []byte
	MimeType string
}

// Decode validates specs against lim (zero fields take the defaults) and
// decodes their content. Errors are CodeInvalid *domain.Error values whose
// messages are the attachments_* codes sessions_spawn reports.
//
// An empty base64 content is a valid empty file (OpenClaw refuses it).
func Decode(specs []Spec, lim Limits) ([]File, error) {
	lim = lim.withDefaults()
	if len(specs) > lim.MaxFiles {
		return nil, domain.Invalid("attachments_file_count_exceeded (maxFiles=%d)", lim.MaxFiles)
	}
	files := make([]File, 0, len(specs))
	t := tally{lim: lim, seen: make(map[string]bool, len(specs))}
	for _, s := range specs {
		name := strings.TrimSpace(s.Name)
		if err := t.name(name); err != nil {
			return nil, err
		}
		var data []byte
		switch enc := strings.ToLower(strings.TrimSpace(s.Encoding)); enc {
		case "", EncodingUTF8, "utf-8":
			data = []byte(s.Content)
		case EncodingBase64:
			var ok bool
			if data, ok = decodeBase64(s.Content, lim.MaxFileBytes); !ok {
				return nil, domain.Invalid("attachments_invalid_base64_or_too_large")
			}
		default:
			return nil, domain.Invalid("attachments_invalid_encoding (name=%s encoding=%s; use utf8 or base64)", name, displayName(clip(enc, 32)))
		}
		if err := t.size(name, int64(len(data))); err != nil {
			return nil, err
		}
		files = append(files, File{Name: name, Data: data, MimeType: strings.TrimSpace(s.MimeType)})
	}
	return files, nil
}

// Check validates files already decoded (a chat message's attachments, a
// channel's downloads) against lim by Decode's rules: the count, each
// name, each file's size and the total.
func Check(files []File, lim Limits) error {
	lim = lim.withDefaults()
	if len(files) > lim.MaxFiles {
		return domain.Invalid("attachments_file_count_exceeded (maxFiles=%d)", lim.MaxFiles)
	}
	t := tally{lim: lim, seen: make(map[string]bool, len(files))}
	for _, f := range files {
		if err := t.name(f.Name); err != nil {
			return err
		}
		if err := t.size(f.Name, int64(len(f.Data))); err != nil {
			return err
		}
	}
	return nil
}

// tally applies the per-file rules of one set of attachments.
type tally struct {
	lim   Limits
	seen  map[string]bool
	total int64
}

// name checks a file name and that no earlier file took it.
func (t *tally) name(name string) error {
	if err := checkName(name); err != nil {
		return err
	}
	if t.seen[name] {
		return domain.Invalid("attachments_duplicate_name (%s)", name)
	}
	t.seen[name] = true
	return nil
}

// size checks a file's size and the running total.
func (t *tally) size(name string, n int64) error {
	if n > t.lim.MaxFileBytes {
		return domain.Invalid("attachments_file_bytes_exceeded (name=%s bytes=%d maxFileBytes=%d)", name, n, t.lim.MaxFileBytes)
	}
	t.total += n
	if t.total > t.lim.MaxTotalBytes {
		return domain.Invalid("attachments_total_bytes_exceeded (totalBytes=%d maxTotalBytes=%d)", t.total, t.lim.MaxTotalBytes)
	}
	return nil
}

// checkName refuses names that could escape the attachments folder, hide
// control or bidirectional-formatting characters (textcheck's rule, the
// same as for labels), collide with the manifest or not survive the JSON
// manifest unchanged (invalid UTF-8). The error carries the name escaped.
func checkName(name string) error {
	bad := name == "" || name == "." || name == ".." || name == manifestName || len(name) > maxNameBytes ||
		strings.ContainsAny(name, `/\`) || textcheck.Problem(name) != ""
	if bad {
		return domain.Invalid("attachments_invalid_name (%s)", displayName(clip(name, maxNameBytes)))
	}
	return nil
}

// displayName escapes control and bidirectional-formatting characters and
// invalid UTF-8 bytes so an error message cannot carry them to a terminal
// or log line.
func displayName(s string) string { return textcheck.Escape(s) }

// clip shortens s to at most n bytes on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// decodeBase64 decodes strict standard base64 of at most maxBytes decoded
// bytes. Oversized input is refused before any work, so a huge argument
// costs a length check only.
func decodeBase64(content string, maxBytes int64) ([]byte, bool) {
	maxEncoded := (maxBytes + 2) / 3 * 4
	if int64(len(content)) > 2*maxEncoded {
		return nil, false
	}
	s := strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '\n', '\r', '\v', '\f':
			return -1
		}
		return r
	}, content)
	if len(s)%4 != 0 || int64(len(s)) > maxEncoded || !validBase64Chars(s) {
		return nil, false
	}
	data, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil || int64(len(data)) > maxBytes {
		return nil, false
	}
	return data, true
}

// validBase64Chars checks [A-Za-z0-9+/]* followed by at most two '='.
func validBase64Chars(s string) bool {
	body := strings.TrimRight(s, "=")
	if len(s)-len(body) > 2 {
		return false
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		ok := c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/'
		if !ok {
			return false
		}
	}
	return true
}
