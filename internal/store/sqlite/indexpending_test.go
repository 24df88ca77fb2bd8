package sqlite

import (
	"slices"
	"testing"
)

// TestIndexPending: IndexPending indexes the tail a search would index
// first, and does nothing when there is none.
func TestIndexPending(t *testing.T) {
	st := openTemp(t)
	if err := st.IndexPending(t.Context()); err != nil {
		t.Fatalf("empty store: %v", err)
	}
	appendText(t, st, "agent:main:a", "alpha words", "beta words")
	if upto, newest := indexState(t, st); upto != 0 || newest != 2 {
		t.Fatalf("before: upto %d, newest %d; want 0, 2", upto, newest)
	}
	for range 2 { // the second call finds no tail
		if err := st.IndexPending(t.Context()); err != nil {
			t.Fatal(err)
		}
		if upto, newest := indexState(t, st); upto != 2 || newest != 2 {
			t.Fatalf("after: upto %d, newest %d; want 2, 2", upto, newest)
		}
	}
	if got := searchKeys(t, st, "beta"); !slices.Equal(got, []string{"agent:main:a"}) {
		t.Errorf("beta: %v", got)
	}
}
