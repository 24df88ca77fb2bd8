package tools

import (
	"context"

	"github.com/switchboard-go/switchboard/internal/api"
)

func (f *fakeService) Search(_ context.Context, _ api.Principal, r api.SearchRequest) (api.SearchResult, error) {
	f.got = r
	return api.SearchResult{Results: []api.SearchHit{}}, nil
}
