package sqlite

import (
	"fmt"
	"reflect"
	"testing"
)

// TestUpdateChangedQuery: the UPDATE sets exactly the changed columns,
// in order, with their new values; each set of columns has its text
// built once; tables wider than the mask still get every column.
func TestUpdateChangedQuery(t *testing.T) {
	names := []string{"k", "a", "b", "c", "data"}
	old := []any{"key", int64(1), "x", 2.5, []byte(`{"v":1}`)}
	queries := map[updateShape]string{}
	tests := []struct {
		name  string
		new   []any
		query string
		vals  []any
	}{
		{"nothing changed", []any{"key", int64(1), "x", 2.5, []byte(`{"v":1}`)}, "", nil},
		{"one column", []any{"key", int64(2), "x", 2.5, []byte(`{"v":1}`)}, "UPDATE t SET a = ? WHERE k = ?", []any{int64(2)}},
		{"two columns", []any{"key", int64(1), "y", 2.5, []byte(`{"v":2}`)}, "UPDATE t SET b = ?, data = ? WHERE k = ?", []any{"y", []byte(`{"v":2}`)}},
		{"the same two again", []any{"key", int64(1), "z", 2.5, []byte(`{"v":3}`)}, "UPDATE t SET b = ?, data = ? WHERE k = ?", []any{"z", []byte(`{"v":3}`)}},
	}
	for _, tt := range tests {
		q, vals := updateChangedQuery(queries, "t", "k", names, old, tt.new)
		if q != tt.query || !reflect.DeepEqual(vals, tt.vals) {
			t.Errorf("%s: got %q %v, want %q %v", tt.name, q, vals, tt.query, tt.vals)
		}
	}
	if len(queries) != 2 {
		t.Errorf("%d statement texts cached, want 2 (one per set of columns)", len(queries))
	}

	// 70 columns: more than the mask's bits.
	var wideNames []string
	var wideOld, wideNew []any
	for i := range 70 {
		wideNames = append(wideNames, fmt.Sprintf("c%d", i))
		wideOld = append(wideOld, int64(0))
		wideNew = append(wideNew, int64(0))
	}
	wideNew[3], wideNew[68] = int64(1), int64(2)
	q, vals := updateChangedQuery(queries, "w", "c0", wideNames, wideOld, wideNew)
	if want := "UPDATE w SET c3 = ?, c68 = ? WHERE c0 = ?"; q != want || !reflect.DeepEqual(vals, []any{int64(1), int64(2)}) {
		t.Errorf("wide table: got %q %v, want %q [1 2]", q, vals, want)
	}
}
