package rowcodec

import (
	"cmp"
	"slices"
	"strings"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// sortSessions puts rows in list order (UpdatedAt descending, Key
// ascending; keys are unique). It sorts small (UpdatedAt, Key, index)
// records and then moves each Session once, instead of swapping 400-byte
// structs a few million times.
func sortSessions(rows []domain.Session) {
	type sortKey struct {
		updated int64
		key     string
		i       int
	}
	keys := make([]sortKey, len(rows))
	sorted := true
	for i := range rows {
		keys[i] = sortKey{rows[i].UpdatedAt, rows[i].Key, i}
		if i > 0 && listCmp(keys[i-1].updated, keys[i-1].key, keys[i].updated, keys[i].key) > 0 {
			sorted = false
		}
	}
	if sorted {
		return
	}
	slices.SortFunc(keys, func(a, b sortKey) int { return listCmp(a.updated, a.key, b.updated, b.key) })
	// keys[j].i is the row that belongs at j. Follow each cycle of that
	// permutation, marking visited positions with -1.
	for start := range keys {
		if keys[start].i < 0 {
			continue
		}
		first := rows[start]
		j := start
		for {
			from := keys[j].i
			keys[j].i = -1
			if from == start {
				rows[j] = first
				break
			}
			rows[j] = rows[from]
			j = from
		}
	}
}

// listCmp orders by updatedAt descending, then key ascending (SQLite's
// BINARY collation compares bytes, as Go strings do).
func listCmp(u1 int64, k1 string, u2 int64, k2 string) int {
	if c := cmp.Compare(u2, u1); c != 0 {
		return c
	}
	return strings.Compare(k1, k2)
}
