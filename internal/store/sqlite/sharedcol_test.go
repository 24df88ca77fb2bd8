package sqlite

import (
	"testing"
	"unsafe"

	"github.com/google/uuid"
)

// TestSharedCol scans rows of one column in order: each value comes out as
// textCol would give it, and a value equal to the previous row's reuses
// its string.
func TestSharedCol(t *testing.T) {
	u := uuid.MustParse("0b9f3c52-5a4e-4d8e-9a57-1f0c4e2d7a31")
	packed := func() []byte { return append([]byte(nil), u[:]...) } // a fresh copy per row, as the driver gives
	type row struct {
		src    any
		want   string
		shared bool // the same string as the previous row's
	}
	tests := []struct {
		name string
		rows []row
	}{
		{"packed run repeats", []row{{packed(), u.String(), false}, {packed(), u.String(), true}, {packed(), u.String(), true}}},
		{"NULL after a value is empty", []row{{packed(), u.String(), false}, {nil, "", false}, {packed(), u.String(), false}}},
		{"short packed id", []row{{[]byte{0xde, 0xad, 0xbe, 0xef}, "deadbeef", false}, {[]byte{0xde, 0xad, 0xbe, 0xef}, "deadbeef", true}}},
		{"text", []row{{"s1", "s1", false}, {"s" + "1", "s1", true}, {"s2", "s2", false}}},
		{"text then packed of the same id", []row{{u.String(), u.String(), false}, {packed(), u.String(), false}, {packed(), u.String(), true}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c sharedCol
			prev := ""
			for i, r := range tc.rows {
				if err := c.Scan(r.src); err != nil {
					t.Fatalf("row %d: %v", i, err)
				}
				if c.s != r.want {
					t.Fatalf("row %d = %q, want %q", i, c.s, r.want)
				}
				if r.shared && unsafe.StringData(c.s) != unsafe.StringData(prev) {
					t.Errorf("row %d: a new string for a repeated value", i)
				}
				prev = c.s
			}
		})
	}
	var c sharedCol
	if err := c.Scan([]byte{1, 2, 3}); err == nil {
		t.Error("a 3-byte packed id scanned")
	}
	if err := c.Scan(int64(1)); err == nil {
		t.Error("an integer id scanned")
	}
}
