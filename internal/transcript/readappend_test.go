package transcript

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestReadAppendMatchesRead: reading the test transcripts one after the
// other through one reused slice gives what Read gives for each, whatever
// the previous file left in the slice.
func TestReadAppendMatchesRead(t *testing.T) {
	files := []string{"branched.jsonl", "normal.jsonl", "garbled.jsonl", "noheader.jsonl", "noparents.jsonl", "truncated.jsonl", "branched.jsonl"}
	var buf []Entry
	for _, name := range files {
		raw, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		h1, e1, st1, err1 := Read(bytes.NewReader(raw))
		h2, e2, st2, err2 := ReadAppend(bytes.NewReader(raw), buf)
		if (err1 == nil) != (err2 == nil) || (err1 != nil && err1.Error() != err2.Error()) {
			t.Errorf("%s: errors %v and %v", name, err1, err2)
		}
		// An empty result is nil from Read and buf[:0] from ReadAppend.
		sameEntries := len(e1) == len(e2) && (len(e1) == 0 || reflect.DeepEqual(e1, e2))
		if !reflect.DeepEqual(h1, h2) || !sameEntries || !reflect.DeepEqual(st1, st2) {
			t.Errorf("%s: ReadAppend gave %d entries, %+v; Read %d, %+v", name, len(e2), st2, len(e1), st1)
		}
		buf = e2
	}
}
