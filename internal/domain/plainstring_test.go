package domain

import (
	"encoding/json"
	"testing"
)

// The fast path for plain JSON strings must decode exactly what
// encoding/json does, and leave everything else to it.
func TestContentPlainStringMatchesJSON(t *testing.T) {
	for _, lit := range []string{
		`"hello"`, `""`, `"héllo ✓"`, `"a\"b"`, `"line\nbreak"`, `"\u00e9"`, `"tab	here"`,
		"\"bad \xff utf8\"", `"back\\slash"`, `"<b>&amp;</b>"`,
	} {
		var want string
		wantErr := json.Unmarshal([]byte(lit), &want)
		var c Content
		err := c.UnmarshalJSON([]byte(lit))
		if (err != nil) != (wantErr != nil) {
			t.Errorf("%q: error %v, encoding/json %v", lit, err, wantErr)
			continue
		}
		if err == nil && (!c.IsPlain() || c.Text() != want) {
			t.Errorf("%q: got %q (plain %v), want %q", lit, c.Text(), c.IsPlain(), want)
		}
	}
}
