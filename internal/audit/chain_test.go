package audit

import (
	"strings"
	"testing"
)

func chain(n int) []Record {
	var out []Record
	head := Anchor{}
	for i := range n {
		r := Next(head, Entry{At: int64(i + 1), Kind: KindAdmin, Op: "sessions.patch", Detail: strings.Repeat("x", i)})
		out = append(out, r)
		head = Anchor{Seq: r.Seq, Hash: r.Hash}
	}
	return out
}

func TestVerifyFindsTheFirstBreak(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func([]Record) ([]Record, Anchor)
		want   int64 // 0: holds
	}{
		{"intact", func(r []Record) ([]Record, Anchor) { return r, headOf(r) }, 0},
		{"field edited", func(r []Record) ([]Record, Anchor) { r[3].Actor = "x"; return r, headOf(r) }, 4},
		{"time edited", func(r []Record) ([]Record, Anchor) { r[0].At++; return r, headOf(r) }, 1},
		{"edited with its hash recomputed", func(r []Record) ([]Record, Anchor) {
			r[5].Detail = "y"
			r[5].Hash = Seal(r[5].Prev, r[5].Seq, r[5].Entry)
			return r, headOf(r)
		}, 7},
		{"deleted", func(r []Record) ([]Record, Anchor) { return append(r[:2:2], r[3:]...), headOf(r) }, 3},
		{"tail deleted", func(r []Record) ([]Record, Anchor) { h := headOf(r); return r[:8], h }, 9},
		{"reordered", func(r []Record) ([]Record, Anchor) { r[1], r[2] = r[2], r[1]; return r, headOf(r) }, 2},
		{"kind edited", func(r []Record) ([]Record, Anchor) { r[9].Kind = KindSpawn; return r, headOf(r) }, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recs, head := tc.change(chain(10))
			_, brk := Verify(Anchor{}, head, recs)
			switch {
			case tc.want == 0 && brk != nil:
				t.Fatalf("break %v", brk)
			case tc.want != 0 && (brk == nil || brk.Seq != tc.want):
				t.Fatalf("break %v, want at %d", brk, tc.want)
			}
		})
	}
}

func TestVerifyFromAnAnchor(t *testing.T) {
	recs := chain(10)
	anchor := Anchor{Seq: recs[3].Seq, Hash: recs[3].Hash}
	if n, brk := Verify(anchor, headOf(recs), recs[4:]); brk != nil || n != 6 {
		t.Fatalf("from anchor: %d %v", n, brk)
	}
	if _, brk := Verify(Anchor{Seq: 4, Hash: "forged"}, headOf(recs), recs[4:]); brk == nil || brk.Seq != 5 {
		t.Fatalf("forged anchor: %v", brk)
	}
}

func TestClipKeepsTextStorable(t *testing.T) {
	e := Entry{Detail: "a\x00b\xff" + strings.Repeat("é", 400)}.Clip()
	if strings.ContainsRune(e.Detail, 0) || !strings.HasPrefix(e.Detail, "a\uFFFDb\uFFFD") || len(e.Detail) > maxField {
		t.Fatalf("clipped %q (%d bytes)", e.Detail[:10], len(e.Detail))
	}
	if !strings.HasSuffix(e.Detail, "é") {
		t.Fatal("cut inside a rune")
	}
}

func headOf(r []Record) Anchor { l := r[len(r)-1]; return Anchor{Seq: l.Seq, Hash: l.Hash} }
