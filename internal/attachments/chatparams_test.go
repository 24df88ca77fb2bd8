package attachments

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

func TestDecodeChat(t *testing.T) {
	b64 := base64.StdEncoding.EncodeToString
	pngB64 := b64(png)
	for _, tc := range []struct {
		name  string
		raw   string
		lim   Limits
		names []string
		types []string
		data  [][]byte
		err   string
	}{
		{name: "absent", raw: ``},
		{name: "null", raw: `null`},
		{name: "empty", raw: `[]`},
		{name: "control ui image", raw: `[{"type":"image","mimeType":"image/png","fileName":"cat.png","content":"` + pngB64 + `"}]`,
			names: []string{"cat.png"}, types: []string{"image/png"}, data: [][]byte{png}},
		{name: "pasted images named by type with an extension, made unique",
			raw:   `[{"type":"image","mimeType":"image/png","content":"` + pngB64 + `"},{"type":"image","content":"data:image/png;base64,` + pngB64 + `"}]`,
			names: []string{"image.png", "image-2.png"}, types: []string{"image/png", "image/png"}, data: [][]byte{png, png}},
		{name: "no name or type", raw: `[{"content":"aGk="}]`, names: []string{"attachment-1.txt"}, data: [][]byte{[]byte("hi")}},
		{name: "anthropic source", raw: `[{"fileName":"a.png","source":{"type":"base64","media_type":"image/png","data":"` + pngB64 + `"}}]`,
			names: []string{"a.png"}, types: []string{"image/png"}, data: [][]byte{png}},
		{name: "not an array", raw: `{"content":"x"}`, err: "attachments must be an array"},
		{name: "entry not an object", raw: `["x"]`, err: "attachments[0] must be an object"},
		{name: "content missing", raw: `[{"content":"aGk="},{"fileName":"a.png"}]`, err: "attachments[1].content required"},
		{name: "content not a string", raw: `[{"content":7}]`, err: "attachments[0].content must be a base64 string"},
		{name: "content empty", raw: `[{"content":""}]`, err: "attachments[0].content: empty"},
		{name: "bad base64", raw: `[{"content":"!!!!"}]`, err: "attachments[0].content: not valid base64"},
		{name: "fileName not a string", raw: `[{"content":"aGk=","fileName":3}]`, err: "attachments[0].fileName must be a string"},
		{name: "fileName escapes", raw: `[{"content":"aGk=","fileName":"../x"}]`, err: "attachments[0].fileName: attachments_invalid_name"},
		{name: "bad source", raw: `[{"source":{"type":"url","data":"x"}}]`, err: "attachments[0].source must be"},
		{name: "file too large", raw: `[{"content":"aGk="},{"content":"` + b64(make([]byte, 20)) + `"}]`, lim: Limits{MaxFileBytes: 10},
			err: "attachments[1].content: 20 bytes is over maxFileBytes 10 (tools.sessions_spawn.attachments.maxFileBytes)"},
		{name: "total too large", raw: `[{"content":"` + b64(make([]byte, 8)) + `"},{"content":"` + b64(make([]byte, 8)) + `"}]`, lim: Limits{MaxTotalBytes: 10},
			err: "attachments[1].content: the files come to 16 bytes, over maxTotalBytes 10 (tools.sessions_spawn.attachments.maxTotalBytes)"},
		{name: "too many", raw: `[{"content":"aGk="},{"content":"aGk="}]`, lim: Limits{MaxFiles: 1},
			err: "attachments: 2 files is over maxFiles 1 (tools.sessions_spawn.attachments.maxFiles)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files, err := DecodeChat([]byte(tc.raw), tc.lim)
			if tc.err != "" {
				if err == nil || domain.ErrorCode(err) != domain.CodeInvalid || !strings.Contains(domain.ErrorMessage(err), tc.err) {
					t.Fatalf("err = %v, want invalid %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(files) != len(tc.names) {
				t.Fatalf("files %+v, want %v", files, tc.names)
			}
			for i, f := range files {
				if f.Name != tc.names[i] || !bytes.Equal(f.Data, tc.data[i]) || (tc.types != nil && TypeOf(f) != tc.types[i]) {
					t.Errorf("file %d = %q %q %q, want %q", i, f.Name, TypeOf(f), f.Data, tc.names[i])
				}
			}
			if err := Check(files, tc.lim); err != nil {
				t.Errorf("decoded files fail Check: %v", err)
			}
		})
	}
}

// An oversized content is refused by its length, before it is decoded.
func TestDecodeChatOversizedIsNotDecoded(t *testing.T) {
	huge := strings.Repeat("!", 8<<20) // not even base64: the size alone refuses it
	_, err := DecodeChat([]byte(`[{"content":"`+huge+`"}]`), Limits{})
	if err == nil || !strings.Contains(err.Error(), "over maxFileBytes") {
		t.Fatalf("err = %v", err)
	}
}
