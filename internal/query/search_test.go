package query

import (
	"slices"
	"testing"
)

func TestSearchWords(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"Quick brown", []string{"quick", "brown"}},
		{"e-mail OR \"x\"", []string{"e", "mail", "or", "x"}},
		{"fox FOX fox", []string{"fox"}},
		{"!!! ...", nil},
	} {
		if got := searchWords(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("searchWords(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

func TestCursorRoundTrip(t *testing.T) {
	for _, pos := range []int64{1, 42, 1 << 40} {
		got, err := decodeCursor(encodeCursor(pos))
		if err != nil || got != pos {
			t.Errorf("decodeCursor(encodeCursor(%d)) = %d, %v", pos, got, err)
		}
	}
	for _, bad := range []string{"x", encodeCursor(0), "czE6LTE"} {
		if _, err := decodeCursor(bad); err == nil {
			t.Errorf("decodeCursor(%q) accepted", bad)
		}
	}
}

func TestNormalizeKinds(t *testing.T) {
	if got, err := NormalizeKinds([]string{" Main ", "GROUP"}); err != nil || !slices.Equal(got, []string{"main", "group"}) {
		t.Errorf("NormalizeKinds = %q, %v", got, err)
	}
	if _, err := NormalizeKinds([]string{"nope"}); err == nil {
		t.Error("NormalizeKinds accepted an unknown kind")
	}
}
