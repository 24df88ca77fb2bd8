package openclawimport

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestImportIsSearchable: imported transcripts are indexed by the same
// append that stores them, so sessions_search finds them at once.
func TestImportIsSearchable(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	if _, err := Import(ctx, st, filepath.Join("testdata", "openclaw"), testOptions()); err != nil {
		t.Fatal(err)
	}
	hits, err := st.SearchMessages(ctx, domain.MessageSearch{Words: []string{"deploy"}, Limit: 10})
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
