package attachments

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

func TestLimitsFromConfig(t *testing.T) {
	got := LimitsFromConfig(config.AttachmentsConfig{})
	want := Limits{MaxFiles: 50, MaxFileBytes: 1 << 20, MaxTotalBytes: 5 << 20}
	if got != want {
		t.Errorf("defaults = %+v, want %+v", got, want)
	}
	got = LimitsFromConfig(config.AttachmentsConfig{MaxFiles: 2, MaxFileBytes: 10, MaxTotalBytes: 15})
	if want := (Limits{2, 10, 15}); got != want {
		t.Errorf("explicit = %+v, want %+v", got, want)
	}
}

func TestDecode(t *testing.T) {
	small := Limits{MaxFiles: 3, MaxFileBytes: 10, MaxTotalBytes: 15}
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	tests := []struct {
		name    string
		specs   []Spec
		lim     Limits
		want    []File
		wantErr string
	}{
		{
			name:  "utf8 default and base64",
			specs: []Spec{{Name: " a.txt ", Content: "hello", MimeType: "text/plain"}, {Name: "b.bin", Content: b64("\x00\x01\xff"), Encoding: "BASE64"}},
			lim:   small,
			want:  []File{{Name: "a.txt", Data: []byte("hello"), MimeType: "text/plain"}, {Name: "b.bin", Data: []byte{0, 1, 0xff}}},
		},
		{
			name:  "base64 with whitespace",
			specs: []Spec{{Name: "x", Content: " aGVs\nbG8= \r\n", Encoding: "base64"}},
			lim:   small,
			want:  []File{{Name: "x", Data: []byte("hello")}},
		},
		{
			name:  "empty utf8 and empty base64 are empty files",
			specs: []Spec{{Name: "e1"}, {Name: "e2", Encoding: "base64"}},
			lim:   small,
			want:  []File{{Name: "e1", Data: []byte{}}, {Name: "e2", Data: []byte{}}},
		},
		{name: "too many files", specs: make([]Spec, 4), lim: small, wantErr: "attachments_file_count_exceeded (maxFiles=3)"},
		{name: "empty name", specs: []Spec{{Name: "  "}}, lim: small, wantErr: "attachments_invalid_name ()"},
		{name: "slash", specs: []Spec{{Name: "a/b"}}, lim: small, wantErr: "attachments_invalid_name (a/b)"},
		{name: "backslash", specs: []Spec{{Name: `a\b`}}, lim: small, wantErr: `attachments_invalid_name (a\b)`},
		{name: "NUL", specs: []Spec{{Name: "a\x00b"}}, lim: small, wantErr: `attachments_invalid_name (a\x00b)`},
		{name: "control char", specs: []Spec{{Name: "a\x1bb"}}, lim: small, wantErr: `attachments_invalid_name (a\x1bb)`},
		{name: "DEL", specs: []Spec{{Name: "a\x7fb"}}, lim: small, wantErr: `attachments_invalid_name (a\x7fb)`},
		{name: "C1 control", specs: []Spec{{Name: "a\u0085b"}}, lim: small, wantErr: `attachments_invalid_name (a\x85b)`},
		{name: "CSI", specs: []Spec{{Name: "a\u009b31m"}}, lim: small, wantErr: `attachments_invalid_name (a\x9b31m)`},
		{name: "bidi override", specs: []Spec{{Name: "evil\u202egnp.exe"}}, lim: small, wantErr: `attachments_invalid_name (evil\u202egnp.exe)`},
		{name: "bidi isolate", specs: []Spec{{Name: "a\u2066b\u2069"}}, lim: small, wantErr: `attachments_invalid_name (a\u2066b\u2069)`},
		{name: "bidi mark", specs: []Spec{{Name: "a\u200fb"}}, lim: small, wantErr: `attachments_invalid_name (a\u200fb)`},
		{name: "dot", specs: []Spec{{Name: "."}}, lim: small, wantErr: "attachments_invalid_name (.)"},
		{name: "dotdot", specs: []Spec{{Name: ".."}}, lim: small, wantErr: "attachments_invalid_name (..)"},
		{name: "manifest", specs: []Spec{{Name: ".manifest.json"}}, lim: small, wantErr: "attachments_invalid_name (.manifest.json)"},
		{name: "invalid utf8", specs: []Spec{{Name: "a\xffb"}}, lim: small, wantErr: `attachments_invalid_name (a\xffb)`},
		{name: "duplicate after trim", specs: []Spec{{Name: "a"}, {Name: " a"}}, lim: small, wantErr: "attachments_duplicate_name (a)"},
		{name: "unknown encoding", specs: []Spec{{Name: "a", Encoding: "hex"}}, lim: small, wantErr: "attachments_invalid_encoding (name=a encoding=hex; use utf8 or base64)"},
		{name: "utf8 too large", specs: []Spec{{Name: "a", Content: "12345678901"}}, lim: small, wantErr: "attachments_file_bytes_exceeded (name=a bytes=11 maxFileBytes=10)"},
		{name: "utf8 counts bytes not runes", specs: []Spec{{Name: "a", Content: "ééééé é"}}, lim: small, wantErr: "attachments_file_bytes_exceeded (name=a bytes=13 maxFileBytes=10)"},
		{
			name:    "total too large",
			specs:   []Spec{{Name: "a", Content: "1234567890"}, {Name: "b", Content: "123456"}},
			lim:     small,
			wantErr: "attachments_total_bytes_exceeded (totalBytes=16 maxTotalBytes=15)",
		},
		{name: "base64 bad length", specs: []Spec{{Name: "a", Content: "aGVsbG8", Encoding: "base64"}}, lim: small, wantErr: "attachments_invalid_base64_or_too_large"},
		{name: "base64 bad char", specs: []Spec{{Name: "a", Content: "aGV-bG8=", Encoding: "base64"}}, lim: small, wantErr: "attachments_invalid_base64_or_too_large"},
		{name: "base64 url alphabet", specs: []Spec{{Name: "a", Content: "__8=", Encoding: "base64"}}, lim: small, wantErr: "attachments_invalid_base64_or_too_large"},
		{name: "base64 three pads", specs: []Spec{{Name: "a", Content: "aG===", Encoding: "base64"}}, lim: small, wantErr: "attachments_invalid_base64_or_too_large"},
		{name: "base64 pad in middle", specs: []Spec{{Name: "a", Content: "aG==aGVs", Encoding: "base64"}}, lim: small, wantErr: "attachments_invalid_base64_or_too_large"},
		{name: "base64 non-canonical padding bits", specs: []Spec{{Name: "a", Content: "aGVsbG9=", Encoding: "base64"}}, lim: small, wantErr: "attachments_invalid_base64_or_too_large"},
		{
			// 12 bytes encode to 16 chars = ceil(10/3)*4, so only the decoded-size check refuses it.
			name:    "base64 decoded over max",
			specs:   []Spec{{Name: "a", Content: b64("123456789012"), Encoding: "base64"}},
			lim:     small,
			wantErr: "attachments_invalid_base64_or_too_large",
		},
		{
			name:    "base64 encoded over max",
			specs:   []Spec{{Name: "a", Content: b64("123456789012345"), Encoding: "base64"}},
			lim:     small,
			wantErr: "attachments_invalid_base64_or_too_large",
		},
		{
			name:    "base64 huge input refused before work",
			specs:   []Spec{{Name: "a", Content: strings.Repeat(" ", 33) + "aGVsbG8=", Encoding: "base64"}},
			lim:     small,
			wantErr: "attachments_invalid_base64_or_too_large",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode(tt.specs, tt.lim)
			if tt.wantErr != "" {
				var de *domain.Error
				if !errors.As(err, &de) || de.Code != domain.CodeInvalid || de.Message != tt.wantErr {
					t.Fatalf("Decode() error = %v, want invalid %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Decode() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Decode() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeBase64AtLimit(t *testing.T) {
	data := bytes.Repeat([]byte{0xab}, 10)
	enc := base64.StdEncoding.EncodeToString(data)
	files, err := Decode([]Spec{{Name: "a", Content: enc, Encoding: "base64"}}, Limits{MaxFileBytes: 10})
	if err != nil {
		t.Fatalf("Decode() error = %v", err)
	}
	if !bytes.Equal(files[0].Data, data) {
		t.Errorf("data = %x, want %x", files[0].Data, data)
	}
	// Whitespace padding up to twice the encoded maximum is still accepted.
	padded := enc + strings.Repeat("\n", 2*16-len(enc))
	if _, err := Decode([]Spec{{Name: "a", Content: padded, Encoding: "base64"}}, Limits{MaxFileBytes: 10}); err != nil {
		t.Errorf("padded Decode() error = %v", err)
	}
}

func TestDecodeLongNameIsClipped(t *testing.T) {
	_, err := Decode([]Spec{{Name: strings.Repeat("é", 200)}}, Limits{})
	if err == nil || !strings.HasPrefix(err.Error(), "attachments_invalid_name (éé") || len(err.Error()) > 300 {
		t.Fatalf("Decode() error = %v, want a clipped invalid name", err)
	}
}
