package sqlite

import (
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/store/rowcodec"
)

// TestAppendIDColMatchesTextCol holds the listing's direct id encoding to
// textCol's (and packText's round trip) for every stored form.
func TestAppendIDColMatchesTextCol(t *testing.T) {
	for _, id := range []string{"0a1b2c3d", "ffffffff", "00000000", "0b5a9e4c-1d2f-4e3a-9b8c-7d6e5f4a3b2c", "run-1", "ABCDEF12", "", `q"\x`} {
		v := packedArg(id)
		var want string
		if err := (textCol{&want}).Scan(v); err != nil {
			t.Fatal(err)
		}
		b, got, n, err := appendIDCol([]byte("x"), v)
		if n > 0 {
			got = string(b[len(b)-1-n : len(b)-1])
		}
		if err != nil || got != want || got != id || string(b) != "x"+string(rowcodec.AppendJSONString(nil, id)) {
			t.Errorf("%q: got %q, %s, %v", id, got, b, err)
		}
	}
	for _, v := range []any{[]byte{1, 2, 3}, int64(5)} {
		if _, _, _, err := appendIDCol(nil, v); err == nil || !strings.Contains(err.Error(), "corrupt") {
			t.Errorf("%v: err %v", v, err)
		}
	}
}
