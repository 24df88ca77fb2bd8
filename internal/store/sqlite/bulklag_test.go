package sqlite

import (
	"fmt"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// appendPreparedText appends one user message per text to key through
// PrepareMessages and AppendPrepared, as the importer does.
func appendPreparedText(t *testing.T, st *Store, key string, texts []string) {
	t.Helper()
	msgs := make([]domain.Message, len(texts))
	for i, text := range texts {
		msgs[i] = domain.Message{Role: domain.RoleUser, Content: domain.TextContent(text), Timestamp: 1}
	}
	pm, err := st.PrepareMessages(msgs)
	if err != nil {
		t.Fatal(err)
	}
	err = st.Update(t.Context(), func(tx domain.Tx) error {
		if err := tx.PutSession(domain.Session{Key: key, AgentID: "main", SessionID: "s", UpdatedAt: 1}); err != nil {
			return err
		}
		_, err := tx.(domain.PreparedAppender).AppendPrepared(key, "s", pm)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSearchIndexBulkLag: after a batch of prepared (bulk) appends the
// writer lets up to bulkIndexLagMax messages wait, batches that append
// nothing leave that bound, and the next plain append brings it back to
// indexLagMax, so the whole tail is indexed.
func TestSearchIndexBulkLag(t *testing.T) {
	st := openTemp(t)
	texts := make([]string, bulkIndexLagMax/2)
	for i := range texts {
		texts[i] = fmt.Sprintf("bulk %d", i)
	}
	appendPreparedText(t, st, "agent:main:a", texts)
	// The writer would catch up after the batch; the next Update runs
	// after that (one writer goroutine).
	if err := st.Update(t.Context(), func(domain.Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if upto, newest := indexState(t, st); upto != 0 || newest != int64(len(texts)) {
		t.Fatalf("after %d bulk appends: upto %d, newest %d; want all waiting", len(texts), upto, newest)
	}
	appendText(t, st, "agent:main:b", "plain words")
	if err := st.Update(t.Context(), func(domain.Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if upto, newest := indexState(t, st); upto != newest || newest != int64(len(texts))+1 {
		t.Fatalf("after a plain append: upto %d, newest %d; want every message indexed", upto, newest)
	}
}

// TestSearchIndexBulkLagBound: bulk appends are indexed once
// bulkIndexLagMax of them wait.
func TestSearchIndexBulkLagBound(t *testing.T) {
	st := openTemp(t)
	texts := make([]string, bulkIndexLagMax)
	for i := range texts {
		texts[i] = fmt.Sprintf("bulk %d", i)
	}
	appendPreparedText(t, st, "agent:main:a", texts)
	if err := st.Update(t.Context(), func(domain.Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if upto, newest := indexState(t, st); upto != newest || newest != bulkIndexLagMax {
		t.Fatalf("after %d bulk appends: upto %d, newest %d; want every message indexed", bulkIndexLagMax, upto, newest)
	}
	if got := searchKeys(t, st, "bulk"); len(got) != bulkIndexLagMax {
		t.Errorf("bulk: %d hits, want %d", len(got), bulkIndexLagMax)
	}
}
