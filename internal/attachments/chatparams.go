package attachments

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// limitKey is where the attachment limits are configured; a refusal names
// the key of the limit it hit.
const limitKey = "tools.sessions_spawn.attachments."

// chatEntry is one entry of OpenClaw's chat attachments (chat.send and
// agent): {type, mimeType, fileName, content} with content base64 (a
// `data:<type>;base64,` prefix allowed, as OpenClaw's Control UI may send
// it), or Anthropic's {source: {type: "base64", media_type, data}}.
// OpenClaw's other fields (origin, sizeBytes, width, …) describe the file
// and change nothing here.
type chatEntry struct {
	Type     json.RawMessage `json:"type"`
	MimeType json.RawMessage `json:"mimeType"`
	FileName json.RawMessage `json:"fileName"`
	Content  json.RawMessage `json:"content"`
	Source   json.RawMessage `json:"source"`
}

// chatSource is an entry's Anthropic-style source.
type chatSource struct {
	Type      string          `json:"type"`
	MediaType string          `json:"media_type"`
	Data      json.RawMessage `json:"data"`
}

// DecodeChat decodes the attachments parameter of a chat message
// (WS chat.send and agent, HTTP chat) under lim (zero fields take the
// defaults). Absent, null or [] is no file. Each refusal is a CodeInvalid
// *domain.Error naming the entry's field and, for a size, the limit and
// its configuration key: `attachments[0].content: 2097152 bytes is over
// maxFileBytes 1048576 (tools.sessions_spawn.attachments.maxFileBytes)`.
//
// A file is named by its fileName, else its type ("image"), else
// attachment-<n>, with an extension for its media type when the name has
// none; a name taken by an earlier file gets a -2, -3, … suffix, since
// pasted images all arrive as "image".
func DecodeChat(raw json.RawMessage, lim Limits) ([]File, error) {
	lim = lim.withDefaults()
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var items []json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		return nil, domain.Invalid("attachments must be an array")
	}
	if len(items) > lim.MaxFiles {
		return nil, domain.Invalid("attachments: %d files is over maxFiles %d (%smaxFiles)", len(items), lim.MaxFiles, limitKey)
	}
	files := make([]File, 0, len(items))
	taken := make(map[string]bool, len(items))
	var total int64
	for i, it := range items {
		f, err := decodeChatEntry(i, it, lim)
		if err != nil {
			return nil, err
		}
		total += int64(len(f.Data))
		if total > lim.MaxTotalBytes {
			return nil, domain.Invalid("attachments[%d].content: the files come to %d bytes, over maxTotalBytes %d (%smaxTotalBytes)", i, total, lim.MaxTotalBytes, limitKey)
		}
		f.Name = unique(f.Name, taken)
		files = append(files, f)
	}
	return files, nil
}

// decodeChatEntry decodes entry i.
func decodeChatEntry(i int, it json.RawMessage, lim Limits) (File, error) {
	var e chatEntry
	if it = bytes.TrimSpace(it); len(it) == 0 || it[0] != '{' || json.Unmarshal(it, &e) != nil {
		return File{}, domain.Invalid("attachments[%d] must be an object", i)
	}
	typ, err := optString(i, "type", e.Type)
	if err != nil {
		return File{}, err
	}
	mimeType, err := optString(i, "mimeType", e.MimeType)
	if err != nil {
		return File{}, err
	}
	fileName, err := optString(i, "fileName", e.FileName)
	if err != nil {
		return File{}, err
	}
	field, content := "content", e.Content
	if isNull(content) && !isNull(e.Source) {
		var src chatSource
		if json.Unmarshal(e.Source, &src) != nil || src.Type != "base64" {
			return File{}, domain.Invalid(`attachments[%d].source must be {type: "base64", media_type, data}`, i)
		}
		field, content = "source.data", src.Data
		if mimeType == "" {
			mimeType = src.MediaType
		}
	}
	if isNull(content) {
		return File{}, domain.Invalid("attachments[%d].content required", i)
	}
	var s string
	if json.Unmarshal(content, &s) != nil {
		return File{}, domain.Invalid("attachments[%d].%s must be a base64 string", i, field)
	}
	s, urlType := stripDataURL(strings.TrimSpace(s))
	if mimeType == "" {
		mimeType = urlType
	}
	data, err := decodeChatBase64(s, lim.MaxFileBytes)
	if err != nil {
		return File{}, domain.Invalid("attachments[%d].%s: %s", i, field, err.Error())
	}
	name := strings.TrimSpace(fileName)
	if name == "" {
		name = strings.TrimSpace(typ)
	}
	if name == "" {
		name = fmt.Sprintf("attachment-%d", i+1)
	}
	f := File{Data: data, MimeType: strings.TrimSpace(mimeType)}
	if path.Ext(name) == "" {
		name += extensionOf(TypeOf(f))
	}
	if err := checkName(name); err != nil {
		return File{}, domain.Invalid("attachments[%d].fileName: %s", i, domain.ErrorMessage(err))
	}
	f.Name = name
	return f, nil
}

// optString reads an optional string field of entry i.
func optString(i int, name string, raw json.RawMessage) (string, error) {
	if isNull(raw) {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", domain.Invalid("attachments[%d].%s must be a string", i, name)
	}
	return s, nil
}

func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

// stripDataURL takes the base64 out of a `data:<type>;base64,<data>` URL
// and returns it with its type; anything else is returned as it is.
func stripDataURL(s string) (string, string) {
	if !strings.HasPrefix(s, "data:") {
		return s, ""
	}
	head, body, ok := strings.Cut(s[len("data:"):], ",")
	params := strings.Split(head, ";")
	if !ok || len(params) < 2 || params[len(params)-1] != "base64" {
		return s, ""
	}
	return body, params[0]
}

// decodeChatBase64 decodes standard base64 (whitespace ignored) of at
// most maxBytes decoded bytes. The size is judged from the length before
// anything is decoded, so an oversized file costs a length check; the
// error says the size and the limit.
func decodeChatBase64(s string, maxBytes int64) ([]byte, error) {
	s = strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '\n', '\r', '\v', '\f':
			return -1
		}
		return r
	}, s)
	if s == "" {
		return nil, fmt.Errorf("empty (a file needs content)")
	}
	size := int64(len(s)) / 4 * 3
	if strings.HasSuffix(s, "==") {
		size -= 2
	} else if strings.HasSuffix(s, "=") {
		size--
	}
	if size > maxBytes {
		return nil, fmt.Errorf("%d bytes is over maxFileBytes %d (%smaxFileBytes)", size, maxBytes, limitKey)
	}
	if len(s)%4 != 0 || !validBase64Chars(s) {
		return nil, fmt.Errorf("not valid base64")
	}
	data, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("not valid base64")
	}
	return data, nil
}

// extensions are the file extensions of the media types a chat client
// sends most; a name without one gets its type's.
var extensions = map[string]string{
	"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp",
	"application/pdf": ".pdf", "text/plain": ".txt", "text/markdown": ".md", "application/json": ".json",
	"audio/mpeg": ".mp3", "audio/ogg": ".ogg", "video/mp4": ".mp4",
}

func extensionOf(mediaType string) string { return extensions[mediaType] }

// unique returns name, or name with a -2, -3, … suffix before its
// extension when an earlier file took it, and marks the result taken.
func unique(name string, taken map[string]bool) string {
	out := name
	ext := path.Ext(name)
	for n := 2; taken[out]; n++ {
		out = fmt.Sprintf("%s-%d%s", strings.TrimSuffix(name, ext), n, ext)
	}
	taken[out] = true
	return out
}
