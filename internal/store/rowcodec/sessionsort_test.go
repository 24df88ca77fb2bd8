package rowcodec

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-go/switchboard/internal/domain"
)

func TestSortSessions(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 7, 1000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			rows := make([]domain.Session, n)
			for i := range rows {
				// Few distinct times, so keys break many ties.
				rows[i] = domain.Session{Key: fmt.Sprintf("k%03d-%d", rng.IntN(1000), i), UpdatedAt: rng.Int64N(5), Label: fmt.Sprint(i)}
			}
			want := slices.Clone(rows)
			slices.SortStableFunc(want, func(a, b domain.Session) int { return listCmp(a.UpdatedAt, a.Key, b.UpdatedAt, b.Key) })
			sortSessions(rows)
			if diff := cmp.Diff(want, rows); diff != "" {
				t.Errorf("sortSessions (-want +got):\n%s", diff)
			}
		})
	}
}
