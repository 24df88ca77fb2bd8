package transcript

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestReadScratchMatchesRead: reading the test transcripts one after the
// other through one Scratch, and taking their active branches in it,
// gives what Read and ActiveBranch give for each, whatever the previous
// file left in it.
func TestReadScratchMatchesRead(t *testing.T) {
	files := []string{"branched.jsonl", "normal.jsonl", "garbled.jsonl", "noheader.jsonl", "noparents.jsonl", "truncated.jsonl", "branched.jsonl"}
	var sc Scratch
	for _, name := range files {
		raw, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		h1, e1, st1, err1 := Read(bytes.NewReader(raw))
		h2, e2, st2, err2 := ReadScratch(bytes.NewReader(raw), &sc)
		if (err1 == nil) != (err2 == nil) || (err1 != nil && err1.Error() != err2.Error()) {
			t.Errorf("%s: errors %v and %v", name, err1, err2)
		}
		// An empty result is nil from Read, maybe not from ReadScratch.
		sameEntries := len(e1) == len(e2) && (len(e1) == 0 || reflect.DeepEqual(e1, e2))
		if !reflect.DeepEqual(h1, h2) || !sameEntries || !reflect.DeepEqual(st1, st2) {
			t.Errorf("%s: ReadScratch gave %d entries, %+v; Read %d, %+v", name, len(e2), st2, len(e1), st1)
		}
		b1, b2 := ActiveBranch(e1), sc.ActiveBranch(e2)
		if len(b1) != len(b2) || (len(b1) > 0 && !reflect.DeepEqual(b1, b2)) {
			t.Errorf("%s: Scratch.ActiveBranch gave %d entries, ActiveBranch %d", name, len(b2), len(b1))
		}
	}
}

// TestMsgSlab: the slab hands out distinct zeroed messages that stay put,
// across chunk boundaries, and hands them out zeroed again after reset.
func TestMsgSlab(t *testing.T) {
	for _, n := range []int{0, 1, msgSlabChunk - 1, msgSlabChunk, msgSlabChunk + 1, 3*msgSlabChunk + 5} {
		var s msgSlab
		for round := range 2 {
			ptrs := make([]*domain.Message, n)
			for i := range ptrs {
				m := s.next()
				if m.Role != "" || m.Seq != 0 {
					t.Fatalf("n %d round %d: message %d not zeroed: %+v", n, round, i, *m)
				}
				m.Role, m.Seq = "user", int64(i+1)
				ptrs[i] = m
			}
			for i, m := range ptrs {
				if m.Seq != int64(i+1) {
					t.Fatalf("n %d round %d: message %d was overwritten (seq %d)", n, round, i, m.Seq)
				}
			}
			s.reset()
		}
	}
	var nilSlab *msgSlab
	if m := nilSlab.next(); m == nil || m.Role != "" {
		t.Errorf("nil slab: %+v", m)
	}
}
