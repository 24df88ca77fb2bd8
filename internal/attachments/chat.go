package attachments

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"path"
	"strings"
	"unicode"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// imageTypes are the image types both model APIs accept as image input
// (Anthropic and OpenAI take the same four).
var imageTypes = map[string]bool{"image/jpeg": true, "image/png": true, "image/gif": true, "image/webp": true}

// ImageType returns the image type data sniffs as when it is one a model
// can take as an image part, else "". The bytes decide, not the declared
// type: a provider refuses an image part whose bytes are not what it says.
func ImageType(data []byte) string {
	t := http.DetectContentType(data)
	if imageTypes[t] {
		return t
	}
	return ""
}

// TypeOf is the media type a file is described with: its image type when
// its bytes are one, else its declared type when that is a well-formed
// type/subtype, else what its bytes sniff as.
func TypeOf(f File) string {
	if t := ImageType(f.Data); t != "" {
		return t
	}
	if t := strings.ToLower(strings.TrimSpace(f.MimeType)); wellFormedType(t) {
		return t
	}
	t, _, _ := strings.Cut(http.DetectContentType(f.Data), ";")
	return t
}

// wellFormedType reports a type/subtype of token characters only.
func wellFormedType(t string) bool {
	major, minor, ok := strings.Cut(t, "/")
	return ok && len(t) <= 127 && token(major) && token(minor)
}

func token(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("!#$&^_.+-", c) >= 0) {
			return false
		}
	}
	return true
}

// Digest is a stable hash of files' names, types and bytes: a chat's
// idempotency fingerprint includes it, so a key reused with other files
// is a conflict.
func Digest(files []File) string {
	if len(files) == 0 {
		return ""
	}
	h := sha256.New()
	for _, f := range files {
		fmt.Fprintf(h, "%d:%s|%d:%s|%d:", len(f.Name), f.Name, len(f.MimeType), f.MimeType, len(f.Data))
		h.Write(f.Data)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// UserContent is the content of a user message that carries files
// materialized at relDir (relative to the agent's workspace): one text
// block holding text and a `[media attached: …]` note per file (OpenClaw's
// note: the file's path, type and name), then an image block
// {type:"image", data, mimeType} for each file that is an image a model
// can see. The model gets the images as image parts and every other file
// as its note (the agent can read it in its workspace).
func UserContent(text string, files []File, relDir string) domain.Content {
	var lines []string
	if t := strings.TrimSpace(text); t != "" {
		lines = append(lines, t)
	}
	if len(files) > 1 {
		lines = append(lines, fmt.Sprintf("[media attached: %d files]", len(files)))
	}
	var images []domain.Block
	for i, f := range files {
		prefix := "[media attached: "
		if len(files) > 1 {
			prefix = fmt.Sprintf("[media attached %d/%d: ", i+1, len(files))
		}
		name, _ := json.Marshal(noteValue(f.Name))
		lines = append(lines, prefix+noteValue(path.Join(relDir, f.Name))+" ("+TypeOf(f)+") "+string(name)+"]")
		if t := ImageType(f.Data); t != "" {
			images = append(images, domain.Block{Type: domain.BlockImage, MimeType: t, Data: base64.StdEncoding.EncodeToString(f.Data)})
		}
	}
	return domain.BlockContent(append([]domain.Block{domain.TextBlock(strings.Join(lines, "\n"))}, images...)...)
}

// noteValue keeps a note on one line with its closing bracket its own:
// control characters and ']' become spaces, runs of spaces one.
func noteValue(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == ']' || unicode.IsControl(r) || unicode.IsSpace(r) {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}
