package rowcodec

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestMix32IsBijective(t *testing.T) {
	// Distinct over a long run of consecutive seqs, and over random ones.
	// (Each step of mix32 is invertible, so this only guards the code.)
	const n = 1 << 18
	out := make([]uint32, 0, 2*n)
	for i := range uint32(n) {
		out = append(out, mix32(i))
	}
	rng := rand.New(rand.NewPCG(3, 4))
	seen := map[uint32]bool{}
	for range n / 4 {
		x := rng.Uint32()
		if x < n || seen[x] {
			continue
		}
		seen[x] = true
		out = append(out, mix32(x))
	}
	slices.Sort(out)
	for i := 1; i < len(out); i++ {
		if out[i] == out[i-1] {
			t.Fatalf("mix32 maps two inputs to %#x", out[i])
		}
	}
	for _, seq := range []int64{1, 2, 77_000, 1<<32 - 1} {
		id := entryID(seq, 0xdeadbeef)
		if salt, ok := saltOf(id, seq); !ok || salt != 0xdeadbeef {
			t.Errorf("saltOf(entryID(%d)) = %#x, %v", seq, salt, ok)
		}
	}
	if _, ok := saltOf("not-hex!", 1); ok {
		t.Error("saltOf accepted a non-hex id")
	}
}

func TestUnmix32InvertsMix32(t *testing.T) {
	for _, x := range []uint32{0, 1, 2, 7, 1 << 16, 0xdeadbeef, 0xffffffff, 123456789} {
		if got := unmix32(mix32(x)); got != x {
			t.Errorf("unmix32(mix32(%#x)) = %#x", x, got)
		}
	}
}
