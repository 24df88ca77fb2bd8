package wireschema

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestParseReadsAsEncodingJSON checks parse against encoding/json: the
// same documents are valid, and each reads as the same value.
func TestParseReadsAsEncodingJSON(t *testing.T) {
	for _, doc := range parseCorpus {
		checkParse(t, doc)
	}
}

// TestParseKeepsKeyOrder checks what encoding/json cannot tell: keys keep
// the order they are written in, and a repeated key its first place and
// its last value.
func TestParseKeepsKeyOrder(t *testing.T) {
	v, err := parse([]byte(` {"b":1,"a":{"y":[],"x":null},"b":"last"} `))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(v.keys, ","); got != "b,a" {
		t.Errorf("keys = %s, want b,a", got)
	}
	if b := v.vals["b"]; b.kind != kString || b.str != "last" {
		t.Errorf("b = %+v, want the last value", b)
	}
	if got := strings.Join(v.vals["a"].keys, ","); got != "y,x" {
		t.Errorf("a's keys = %s, want y,x", got)
	}
}

// TestParseRefusesDeepNesting: nesting is bounded as encoding/json bounds
// it, so a hostile document cannot exhaust the stack.
func TestParseRefusesDeepNesting(t *testing.T) {
	deep := strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1)
	if _, err := parse([]byte(deep)); err == nil {
		t.Fatal("parse accepted nesting deeper than maxDepth")
	}
	ok := strings.Repeat(`{"a":`, maxDepth) + "1" + strings.Repeat("}", maxDepth)
	if _, err := parse([]byte(ok)); err != nil {
		t.Fatalf("parse refused nesting of maxDepth: %v", err)
	}
}

var parseCorpus = []string{
	`{}`, `[]`, `null`, `true`, `false`, `0`, `-0`, `1.5e3`, `-12.25E-2`, `1e400`, `-1e400`,
	`"plain"`, `"esc\"aped\\\/\b\f\n\r\t"`, `"\u00e9\ud83d\ude00"`, `"\ud800"`, "\"bad \xff utf8\"", `"é́"`,
	`{"a":[1,{"b":null}],"c":"d"}`, ` [ 1 , 2 ] `, `{"k":1,"k":2}`,
	// Invalid documents.
	``, ` `, `{`, `}`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `{a:1}`, `01`, `1.`, `.5`, `-`, `1e`, `+1`,
	`tru`, `nul`, `"open`, "\"ctl\x01\"", `"\x"`, `"\u12"`, `[1] 2`, `{"a":1}}`, `NaN`, `[` + "\x00" + `]`,
}

// checkParse compares parse with encoding/json on one document.
func checkParse(t *testing.T, doc string) {
	t.Helper()
	v, err := parse([]byte(doc))
	if want := json.Valid([]byte(doc)); (err == nil) != want {
		t.Fatalf("parse(%q) error = %v, encoding/json valid = %v", doc, err, want)
	}
	if err != nil {
		return
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(doc)))
	dec.UseNumber()
	var want any
	if err := dec.Decode(&want); err != nil {
		t.Fatalf("encoding/json: %v", err)
	}
	if got := asAny(v); !reflect.DeepEqual(got, want) {
		t.Fatalf("parse(%q) = %#v, encoding/json reads %#v", doc, got, want)
	}
}

// asAny is v as encoding/json decodes into any with UseNumber.
func asAny(v value) any {
	switch v.kind {
	case kBool:
		return v.b
	case kNumber:
		return json.Number(v.raw)
	case kString:
		return v.str
	case kArray:
		out := []any{}
		for _, e := range v.arr {
			out = append(out, asAny(e))
		}
		return out
	case kObject:
		out := map[string]any{}
		for k, e := range v.vals {
			out[k] = asAny(e)
		}
		return out
	}
	return nil
}

// FuzzParse: parse and encoding/json agree on every input.
func FuzzParse(f *testing.F) {
	for _, doc := range parseCorpus {
		f.Add(doc)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		checkParse(t, doc)
	})
}
