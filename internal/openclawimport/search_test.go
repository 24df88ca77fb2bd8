package openclawimport

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/sqlite"
)

// TestImportIsSearchable: imported transcripts are searchable once Import
// returns, through the store's own search.
func TestImportIsSearchable(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	if _, err := Import(ctx, st, filepath.Join("testdata", "openclaw"), testOptions()); err != nil {
		t.Fatal(err)
	}
	hits, err := searchHits(ctx, st, domain.MessageSearch{Words: []string{"deploy"}, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var snippets []string
	for _, h := range hits {
		snippets = append(snippets, h.Snippet)
		msgs, err := st.ReadMessages(ctx, h.SessionKey, domain.MessageQuery{})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, m := range msgs {
			found = found || (m.ID == h.MessageID && m.Content.Text() == h.Snippet)
		}
		if !found {
			t.Errorf("hit %+v names no imported message with that text", h)
		}
	}
	if len(hits) != 2 {
		t.Errorf("deploy: %q, want the question and the answer", snippets)
	}
}

// indexCountingStore records when the importer asks for the search index
// to catch up, and how many Updates came before.
type indexCountingStore struct {
	*sqlite.Store
	updates      int
	indexedAfter []int // updates before each IndexPending
}

func (s *indexCountingStore) Update(ctx context.Context, fn func(domain.Tx) error) error {
	s.updates++
	return s.Store.Update(ctx, fn)
}

func (s *indexCountingStore) IndexPending(ctx context.Context) error {
	s.indexedAfter = append(s.indexedAfter, s.updates)
	return s.Store.IndexPending(ctx)
}

// TestImportIndexesAtTheEnd: Import leaves the search index complete
// (the store's last catch-up runs after the last Update), so nothing is
// left for the first search to index.
func TestImportIndexesAtTheEnd(t *testing.T) {
	st := &indexCountingStore{Store: openStore(t)}
	if _, err := Import(t.Context(), st, filepath.Join("testdata", "openclaw"), testOptions()); err != nil {
		t.Fatal(err)
	}
	if st.updates == 0 || !slices.Equal(st.indexedAfter, []int{st.updates}) {
		t.Errorf("IndexPending after updates %v, want once after all %d", st.indexedAfter, st.updates)
	}
}
