package openclawimport

import (
	"context"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// searchHits is SearchMessages for tests that read the hits alone.
func searchHits(ctx context.Context, st domain.MessageSearcher, q domain.MessageSearch) ([]domain.SearchHit, error) {
	page, err := st.SearchMessages(ctx, q)
	return page.Hits, err
}
