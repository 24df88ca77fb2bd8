package transcript

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// decodeAgrees fails t unless DecodeMessage and encoding/json give the
// same message and the same verdict on b.
func decodeAgrees(t *testing.T, b []byte) {
	t.Helper()
	var fast, slow domain.Message
	ferr := DecodeMessage(b, &fast)
	serr := json.Unmarshal(b, &slow)
	if (ferr == nil) != (serr == nil) {
		t.Fatalf("DecodeMessage error %v, encoding/json error %v on %q", ferr, serr, b)
	}
	if ferr == nil && !reflect.DeepEqual(fast, slow) {
		t.Fatalf("DecodeMessage and encoding/json differ on %q:\nfast %#v\nslow %#v", b, fast, slow)
	}
}

// messageCases are bodies as the store writes them and shapes that must
// fall back to encoding/json.
var messageCases = []string{
	`{"role":"user","content":"hi","timestamp":1}`,
	`{"role":"assistant","content":[{"type":"text","text":"line\nbreak \u00e9 \"q\""},{"type":"toolCall","id":"c1","name":"exec","arguments":{"cmd":["ls",1]}}],"api":"x","provider":"p","model":"m","usage":{"input":1,"output":2,"totalTokens":3,"cost":{"total":0.5}},"stopReason":"toolUse","timestamp":5}`,
	`{"role":"toolResult","toolCallId":"c1","toolName":"exec","isError":false,"details":{"x":[1,2]},"content":[{"type":"text","text":"ok"}],"timestamp":7}`,
	`{"role":"user","content":"x","timestamp":1,"provenance":{"kind":"inter_session","sourceSessionKey":"agent:main:a","step":"reply"},"kind":"announce"}`,
	`{"role":"user","content":"hi","timestamp":1,"provenance":{"kind":"external_user","sourceChannel":"webchat"}}`,
	`{"provenance":{"kind":"inter_session","originSessionId":"o","sourceSessionKey":"k","sourceChannel":"c","sourceTool":"t","sourceRunId":"r","step":"s"}}`,
	`{"provenance":{}}`,
	`{"provenance":null}`,
	`{"provenance":{"kind":"a\u00e9\n","extra":[1,{"x":null}]}}`,
	" {\"role\":\"user\",\"content\":\"invalid utf8 \xff here\"} ",
	`{"role":"user","content":null}`,
	`{}`,
	// Fall back (or fail) exactly as encoding/json does.
	`null`,
	`{"Role":"user"}`,
	`{"role":"user","role":"assistant"}`,
	`{"role":"user","content":[]}`,
	`{"role":"user","timestamp":1.5}`,
	`{"role":"user","isError":null}`,
	`{"provenance":{"kind":null}}`,
	`{"provenance":{"kind":1}}`,
	`{"provenance":{"kind":"a","kind":"b"}}`,
	`{"provenance":{"Kind":"a"}}`,
	`{"provenance":{"sourceChannel":"a","SOURCECHANNEL":"b"}}`,
	`{"provenance":"external_user"}`,
	`{"provenance":[]}`,
	`{"provenance":{"kind":"a",}}`,
	`{"role":"user"} trailing`,
	`{"role":"user"`,
	`[1]`,
	`"text"`,
	``,
}

func TestDecodeMessageMatchesJSON(t *testing.T) {
	for _, c := range messageCases {
		decodeAgrees(t, []byte(c))
	}
	// The store's common body decodes to plain text content.
	var m domain.Message
	if err := DecodeMessage([]byte(`{"role":"user","content":"hi","timestamp":1}`), &m); err != nil || m.Content.Text() != "hi" || !m.Content.IsPlain() {
		t.Fatalf("plain body: %+v %v", m, err)
	}
}

func FuzzDecodeMessage(f *testing.F) {
	for _, c := range messageCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		decodeAgrees(t, b)
	})
}

// TestProvenanceKeysCoverStruct keeps the scanner's provenance keys those
// of domain.Provenance, every one a string: a field added there and not
// here would be skipped as unknown by the fast path.
func TestProvenanceKeysCoverStruct(t *testing.T) {
	typ := reflect.TypeFor[domain.Provenance]()
	var tags []string
	for i := range typ.NumField() {
		f := typ.Field(i)
		if f.Type.Kind() != reflect.String {
			t.Errorf("Provenance.%s is %s; the fast path reads strings only", f.Name, f.Type)
		}
		tags = append(tags, strings.Split(f.Tag.Get("json"), ",")[0])
	}
	if !slices.Equal(tags, provenanceKeys) {
		t.Fatalf("domain.Provenance keys %q, provenanceKeys %q", tags, provenanceKeys)
	}
}
