package sqlite

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
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

// TestEntryIDsUniquePerGeneration appends to two generations of a key, in
// several Updates, with every generation drawing the same salt: the ids of
// each generation are still distinct, 8 hex digits and chained.
func TestEntryIDsUniquePerGeneration(t *testing.T) {
	st := openTemp(t)
	st.newID = func() string { return "deadbeef" }
	const key = "agent:main:main"
	appendN := func(sid string, n int) []domain.Message {
		t.Helper()
		var out []domain.Message
		err := st.Update(t.Context(), func(tx domain.Tx) error {
			msgs := make([]domain.Message, n)
			for i := range msgs {
				msgs[i] = domain.Message{Role: domain.RoleUser, Content: domain.TextContent(fmt.Sprint(i))}
			}
			var err error
			out, err = tx.AppendMessages(key, sid, msgs)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for range 3 {
		appendN("s1", 500)
		appendN("s2", 300)
	}
	hex8 := regexp.MustCompile(`^[0-9a-f]{8}$`)
	for _, sid := range []string{"s1", "s2"} {
		msgs, err := st.ReadMessages(t.Context(), key, domain.MessageQuery{SessionID: sid})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for i, m := range msgs {
			if !hex8.MatchString(m.ID) || seen[m.ID] {
				t.Fatalf("%s message %d: id %q malformed or repeated", sid, i, m.ID)
			}
			seen[m.ID] = true
			if i > 0 && m.ParentID != msgs[i-1].ID {
				t.Fatalf("%s message %d: parent %q, want %q", sid, i, m.ParentID, msgs[i-1].ID)
			}
		}
		if len(seen) != map[string]int{"s1": 1500, "s2": 900}[sid] {
			t.Errorf("%s: %d messages", sid, len(seen))
		}
	}
}

func TestUnmix32InvertsMix32(t *testing.T) {
	for _, x := range []uint32{0, 1, 2, 7, 1 << 16, 0xdeadbeef, 0xffffffff, 123456789} {
		if got := unmix32(mix32(x)); got != x {
			t.Errorf("unmix32(mix32(%#x)) = %#x", x, got)
		}
	}
}
