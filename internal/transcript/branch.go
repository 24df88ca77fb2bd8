package transcript

import (
	"slices"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// ActiveBranch returns the branch a session is on: the parentId chain from
// the last entry back to the root, in root-to-leaf order. When no entry has
// a parentId (old or hand-written files) it returns entries in file order.
//
// A parentId that names no earlier entry (its line was garbled, say) does
// not cut the branch short: the walk continues with the entry just before
// in the file, so one lost line loses one message, not the history.
func ActiveBranch(entries []Entry) []Entry {
	return activeBranch(entries, &branchScratch{})
}

// branchScratch is the memory activeBranch works in: a Scratch keeps one
// to reuse (Scratch.ActiveBranch), ActiveBranch uses a new one.
type branchScratch struct {
	index map[string]int
	path  []int
	out   []Entry
}

func activeBranch(entries []Entry, bs *branchScratch) []Entry {
	if len(entries) == 0 {
		return nil
	}
	hasParents := false
	for i := range entries {
		if entries[i].ParentID != "" {
			hasParents = true
			break
		}
	}
	if !hasParents {
		return entries
	}
	if bs.index == nil {
		bs.index = make(map[string]int, len(entries))
	}
	clear(bs.index)
	index := bs.index
	for i := range entries {
		if id := entries[i].ID; id != "" {
			if _, dup := index[id]; !dup {
				index[id] = i
			}
		}
	}
	path := bs.path[:0]
	for cur := len(entries) - 1; cur >= 0; {
		path = append(path, cur)
		pid := entries[cur].ParentID
		if pid == "" {
			break
		}
		// Parents precede children in an append-only file; requiring
		// p < cur also makes cycles impossible.
		if p, ok := index[pid]; ok && p < cur {
			cur = p
		} else {
			cur--
		}
	}
	bs.path = path
	clear(bs.out)
	out := slices.Grow(bs.out[:0], len(path))[:len(path)]
	for i, p := range path {
		out[len(path)-1-i] = entries[p]
	}
	bs.out = out
	return out
}

// Messages returns the messages of entries (those of type "message"), in
// order. The messages are copies; their ID and ParentID are the entries'.
func Messages(entries []Entry) []domain.Message {
	out := make([]domain.Message, 0, len(entries))
	for i := range entries {
		if m := entries[i].Message; m != nil {
			out = append(out, *m)
		}
	}
	return out
}
