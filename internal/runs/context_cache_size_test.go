package runs

import (
	"math"
	"testing"
)

func TestContextCacheBytes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		limit int64
		want  int
	}{
		{"no limit", math.MaxInt64, 256 << 20},
		{"zero", 0, 256 << 20},
		{"roomy limit", 4 << 30, 256 << 20},
		{"exactly four times", 1 << 30, 256 << 20},
		{"tight limit", 512 << 20, 128 << 20},
		{"tiny limit keeps a floor", 16 << 20, 8 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := contextCacheBytes(tc.limit); got != tc.want {
				t.Fatalf("contextCacheBytes(%d) = %d, want %d", tc.limit, got, tc.want)
			}
		})
	}
}
