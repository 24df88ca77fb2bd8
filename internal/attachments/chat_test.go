package attachments

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

var png = append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 32)...)

func TestUserContent(t *testing.T) {
	c := UserContent("what is this?", []File{
		{Name: "cat.png", MimeType: "image/png", Data: png},
		{Name: "fake.jpg", MimeType: "image/jpeg", Data: []byte("not a jpeg at all")},
		{Name: "report.pdf", MimeType: "application/pdf", Data: []byte("%PDF-1.7")},
	}, ".switchboard/attachments/abc")
	blocks := c.Blocks()
	if len(blocks) != 2 || blocks[0].Type != domain.BlockText || blocks[1].Type != domain.BlockImage {
		t.Fatalf("blocks %+v: want the text and one image (the fake jpeg is no image)", blocks)
	}
	want := "what is this?\n[media attached: 3 files]\n" +
		"[media attached 1/3: .switchboard/attachments/abc/cat.png (image/png) \"cat.png\"]\n" +
		"[media attached 2/3: .switchboard/attachments/abc/fake.jpg (image/jpeg) \"fake.jpg\"]\n" +
		"[media attached 3/3: .switchboard/attachments/abc/report.pdf (application/pdf) \"report.pdf\"]"
	if blocks[0].Text != want {
		t.Errorf("text:\n%s\nwant:\n%s", blocks[0].Text, want)
	}
	if blocks[1].MimeType != "image/png" || blocks[1].Data != base64.StdEncoding.EncodeToString(png) {
		t.Errorf("image block %+v", blocks[1])
	}
	// The stored JSON is OpenClaw's (pi-ai's) ImageContent.
	raw, _ := json.Marshal(c)
	if !strings.Contains(string(raw), `{"type":"image","data":"`) || !strings.Contains(string(raw), `"mimeType":"image/png"}`) {
		t.Errorf("stored content %s", raw)
	}
}

func TestUserContentOneFileNoText(t *testing.T) {
	c := UserContent("  ", []File{{Name: "a]b\tc.txt", Data: []byte("hi")}}, "d")
	if got, want := c.Text(), `[media attached: d/a b c.txt (text/plain) "a b c.txt"]`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestCheck(t *testing.T) {
	lim := Limits{MaxFiles: 2, MaxFileBytes: 10, MaxTotalBytes: 15}
	for _, tt := range []struct {
		files []File
		want  string
	}{
		{[]File{{Name: "a", Data: make([]byte, 10)}}, ""},
		{[]File{{Name: "a"}, {Name: "b"}, {Name: "c"}}, "attachments_file_count_exceeded (maxFiles=2)"},
		{[]File{{Name: "a", Data: make([]byte, 11)}}, "attachments_file_bytes_exceeded (name=a bytes=11 maxFileBytes=10)"},
		{[]File{{Name: "a", Data: make([]byte, 10)}, {Name: "b", Data: make([]byte, 6)}}, "attachments_total_bytes_exceeded (totalBytes=16 maxTotalBytes=15)"},
		{[]File{{Name: "a"}, {Name: "a"}}, "attachments_duplicate_name (a)"},
		{[]File{{Name: "../x"}}, "attachments_invalid_name (../x)"},
	} {
		err := Check(tt.files, lim)
		got := ""
		if err != nil {
			got = err.Error()
			if domain.ErrorCode(err) != domain.CodeInvalid {
				t.Errorf("%q is not an invalid-request error", got)
			}
		}
		if got != tt.want {
			t.Errorf("Check = %q, want %q", got, tt.want)
		}
	}
}

func TestDigest(t *testing.T) {
	a := Digest([]File{{Name: "a", Data: []byte("1")}})
	if a == "" || a == Digest([]File{{Name: "a", Data: []byte("2")}}) || a == Digest([]File{{Name: "b", Data: []byte("1")}}) {
		t.Error("digest does not tell files apart")
	}
	if Digest(nil) != "" {
		t.Error("no files must leave the fingerprint as it was")
	}
}
