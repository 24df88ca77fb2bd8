package sqlite

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// appendText appends one user message per text to key (created if new).
func appendText(t *testing.T, st *Store, key string, texts ...string) {
	t.Helper()
	err := st.Update(t.Context(), func(tx domain.Tx) error {
		if _, err := tx.GetSession(key); err != nil {
			if err := tx.PutSession(domain.Session{Key: key, AgentID: "main", SessionID: "s", UpdatedAt: 1}); err != nil {
				return err
			}
		}
		msgs := make([]domain.Message, len(texts))
		for i, text := range texts {
			msgs[i] = domain.Message{Role: domain.RoleUser, Content: domain.TextContent(text), Timestamp: 1}
		}
		_, err := tx.AppendMessages(key, "s", msgs)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// searchKeys returns the session key of each hit for words.
func searchKeys(t *testing.T, st *Store, words ...string) []string {
	t.Helper()
	hits, err := searchHits(t.Context(), st, domain.MessageSearch{Words: words, Limit: 10_000})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, h := range hits {
		keys = append(keys, h.SessionKey)
	}
	return keys
}

// indexState returns upto and the newest message rowid.
func indexState(t *testing.T, st *Store) (upto, newest int64) {
	t.Helper()
	err := st.rdb.QueryRowContext(t.Context(), `SELECT (SELECT upto FROM search_index_state), (SELECT COALESCE(max(rowid), 0) FROM messages)`).Scan(&upto, &newest)
	if err != nil {
		t.Fatal(err)
	}
	return upto, newest
}

func openAt(t *testing.T, path string) *Store {
	t.Helper()
	st, err := Open(t.Context(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestSearchIndexWriterCatchesUp: once indexLagMax appended messages wait,
// the writer indexes them without a search asking.
func TestSearchIndexWriterCatchesUp(t *testing.T) {
	st := openTemp(t)
	appendText(t, st, "agent:main:a", "few words")
	if upto, newest := indexState(t, st); upto != 0 || newest != 1 {
		t.Fatalf("after one append: upto %d, newest %d; want the message waiting (0, 1)", upto, newest)
	}
	texts := make([]string, indexLagMax)
	for i := range texts {
		texts[i] = fmt.Sprintf("bulk %d", i)
	}
	appendText(t, st, "agent:main:b", texts...)
	// The writer catches up after answering that batch; the next Update
	// runs after it (one writer goroutine).
	if err := st.Update(t.Context(), func(domain.Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if upto, newest := indexState(t, st); upto != newest || newest != indexLagMax+1 {
		t.Fatalf("after %d waiting: upto %d, newest %d; want every message indexed", indexLagMax+1, upto, newest)
	}
	if got := searchKeys(t, st, "few"); !slices.Equal(got, []string{"agent:main:a"}) {
		t.Errorf("few: %v", got)
	}
	if got := searchKeys(t, st, "bulk"); len(got) != indexLagMax {
		t.Errorf("bulk: %d hits, want %d", len(got), indexLagMax)
	}
}

// TestSearchIndexDeleteThenReuse: deleting the newest session frees its
// rowids and the next appends reuse them; neither the deleted words nor a
// missing index row of the new messages may show, whether the deleted
// messages were indexed or still waiting.
func TestSearchIndexDeleteThenReuse(t *testing.T) {
	for _, indexed := range []bool{true, false} {
		t.Run(fmt.Sprintf("indexed=%v", indexed), func(t *testing.T) {
			st := openTemp(t)
			appendText(t, st, "agent:main:keep", "kept alpha", "kept beta")
			appendText(t, st, "agent:main:gone", "secret zulu", "secret yankee", "secret xray")
			if indexed {
				if got := searchKeys(t, st, "secret"); len(got) != 3 {
					t.Fatalf("secret before delete: %v", got)
				}
			}
			_, before := indexState(t, st)
			if err := st.Update(t.Context(), func(tx domain.Tx) error { return tx.DeleteSession("agent:main:gone") }); err != nil {
				t.Fatal(err)
			}
			appendText(t, st, "agent:main:new", "fresh one", "fresh two", "fresh three")
			if upto, newest := indexState(t, st); newest != before || upto >= newest {
				t.Fatalf("after delete and append: newest %d (was %d), upto %d; want the freed rowids reused and waiting", newest, before, upto)
			}
			if got := searchKeys(t, st, "secret"); len(got) != 0 {
				t.Errorf("deleted words found: %v", got)
			}
			if got := searchKeys(t, st, "zulu"); len(got) != 0 {
				t.Errorf("deleted words found: %v", got)
			}
			if got := searchKeys(t, st, "fresh"); len(got) != 3 || got[0] != "agent:main:new" {
				t.Errorf("fresh: %v, want the 3 new messages", got)
			}
			if got := searchKeys(t, st, "kept"); len(got) != 2 {
				t.Errorf("kept: %v", got)
			}
			err := st.Update(t.Context(), func(dt domain.Tx) error {
				_, err := dt.(*tx).exec(`INSERT INTO messages_fts (messages_fts) VALUES ('integrity-check')`)
				return err
			})
			if err != nil {
				t.Errorf("integrity-check: %v", err)
			}
		})
	}
}

// TestSearchIndexOtherHandle: messages another handle (another process)
// appended are found by this one's search, and a crash before any
// catch-up (the other handle never indexed nor closed) loses nothing.
func TestSearchIndexOtherHandle(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	a := openAt(t, path)
	b := openAt(t, path)
	appendText(t, a, "agent:main:a", "from a")
	if got := searchKeys(t, b, "from"); !slices.Equal(got, []string{"agent:main:a"}) {
		t.Fatalf("b searching a's message: %v", got)
	}
	appendText(t, b, "agent:main:b", "from b")
	appendText(t, a, "agent:main:a", "from a again")
	if got := searchKeys(t, a, "from"); !slices.Equal(got, []string{"agent:main:a", "agent:main:b", "agent:main:a"}) {
		t.Fatalf("a searching after both appended: %v", got)
	}
}

// TestMigrateToV7: a version 6 store (every message indexed by its append)
// opens with nothing waiting, is searchable at once without indexing a
// message twice, and indexes what is appended after.
func TestMigrateToV7(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "switchboard.db")
	st, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	appendText(t, st, "agent:main:old", "old one", "old two")
	appendText(t, st, "agent:main:other", "old three")
	if got := searchKeys(t, st, "old"); len(got) != 3 {
		t.Fatalf("before: %v", got)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	// What version 6 left: the same index, no search_index_state.
	toV7Layout(t, path)
	rawExec(t, path, `DROP TABLE search_index_state`)
	rawExec(t, path, `PRAGMA user_version = 6`)
	var segs int
	st = openAt(t, path)
	if upto, newest := indexState(t, st); upto != newest || newest != 3 {
		t.Fatalf("after upgrade: upto %d, newest %d; want 3, 3", upto, newest)
	}
	countSegs := func() int {
		if err := st.rdb.QueryRowContext(ctx, `SELECT count(DISTINCT segid) FROM messages_fts_idx`).Scan(&segs); err != nil {
			t.Fatal(err)
		}
		return segs
	}
	before := countSegs()
	if got := searchKeys(t, st, "old"); len(got) != 3 {
		t.Errorf("after upgrade: %v", got)
	}
	if got := countSegs(); got != before {
		t.Errorf("searching the upgraded store wrote %d segments, want none", got-before)
	}
	appendText(t, st, "agent:main:old", "new old four")
	if got := searchKeys(t, st, "old"); len(got) != 4 {
		t.Errorf("after an append: %v", got)
	}
	var version int
	if err := st.rdb.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil || version != SchemaVersion {
		t.Errorf("user_version = %d, %v; want %d", version, err, SchemaVersion)
	}
}

// TestSearchIndexCatchUpInBatch: a search's catch-up that shares a batch
// with appends before and after it indexes the ones before, and the ones
// after are found by the next search.
func TestSearchIndexCatchUpInBatch(t *testing.T) {
	st := openTemp(t)
	appendText(t, st, "agent:main:x", "word first")
	ctx := context.Background()
	err := st.Update(ctx, func(dt domain.Tx) error {
		if _, err := dt.AppendMessages("agent:main:x", "s", []domain.Message{{Role: domain.RoleUser, Content: domain.TextContent("word second"), Timestamp: 1}}); err != nil {
			return err
		}
		if err := dt.(*tx).catchUpIndex(); err != nil {
			return err
		}
		_, err := dt.AppendMessages("agent:main:x", "s", []domain.Message{{Role: domain.RoleUser, Content: domain.TextContent("word third"), Timestamp: 1}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if upto, newest := indexState(t, st); upto != 2 || newest != 3 {
		t.Fatalf("upto %d, newest %d; want 2, 3", upto, newest)
	}
	if got := searchKeys(t, st, "word"); len(got) != 3 {
		t.Errorf("word: %d hits, want 3", len(got))
	}
}

// TestSearchIndexRemembersEveryMessage: both append paths remember every
// message, with no text too, so the catch-up after them need not read the
// table (rememberedTail fills the range), and it indexes what they stored.
func TestSearchIndexRemembersEveryMessage(t *testing.T) {
	st := openTemp(t)
	msgs := []domain.Message{
		{Role: domain.RoleUser, Content: domain.TextContent("alpha words"), Timestamp: 1},
		{Role: domain.RoleUser, Content: domain.TextContent(""), Timestamp: 1},
		{Role: domain.RoleUser, Content: domain.TextContent("omega words"), Timestamp: 1},
	}
	pm, err := st.PrepareMessages(msgs)
	if err != nil {
		t.Fatal(err)
	}
	err = st.Update(t.Context(), func(dt domain.Tx) error {
		for _, key := range []string{"agent:main:plain", "agent:main:prepared"} {
			if err := dt.PutSession(domain.Session{Key: key, AgentID: "main", SessionID: "s", UpdatedAt: 1}); err != nil {
				return err
			}
		}
		if _, err := dt.AppendMessages("agent:main:plain", "s", msgs); err != nil {
			return err
		}
		_, err := dt.(domain.PreparedAppender).AppendPrepared("agent:main:prepared", "s", pm)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	err = st.Update(t.Context(), func(dt domain.Tx) error {
		if rows := dt.(*tx).rememberedTail(0, 6); len(rows) != 6 {
			t.Errorf("remembered tail: %d rows, want all 6 messages", len(rows))
		}
		return dt.(*tx).catchUpIndex()
	})
	if err != nil {
		t.Fatal(err)
	}
	if upto, newest := indexState(t, st); upto != 6 || newest != 6 {
		t.Errorf("upto %d, newest %d; want 6, 6", upto, newest)
	}
	if got := searchKeys(t, st, "words"); len(got) != 4 {
		t.Errorf("words: %v, want the 4 messages with text", got)
	}
}

// TestSearchIndexCatchUpInRetriedBatch: a catch-up batched with appends
// and a failing fn runs twice (the batch re-runs with savepoints after the
// failure, writer.go); the index ends with exactly the kept messages.
func TestSearchIndexCatchUpInRetriedBatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		st, err := Open(ctx, filepath.Join(t.TempDir(), "s.db"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		appendTo := func(dt domain.Tx, key, text string) error {
			if err := dt.PutSession(domain.Session{Key: key, AgentID: "main", SessionID: "s", UpdatedAt: 1}); err != nil {
				return err
			}
			_, err := dt.AppendMessages(key, "s", []domain.Message{{Role: domain.RoleUser, Content: domain.TextContent(text), Timestamp: 1}})
			return err
		}
		if err := st.Update(ctx, func(dt domain.Tx) error { return appendTo(dt, "agent:main:z", "word zero") }); err != nil {
			t.Fatal(err)
		}
		errBad := errors.New("bad")
		fns := []func(domain.Tx) error{
			func(dt domain.Tx) error { return appendTo(dt, "agent:main:a", "word one") },
			func(dt domain.Tx) error { return dt.(*tx).catchUpIndex() },
			func(dt domain.Tx) error {
				if err := appendTo(dt, "agent:main:c", "word three"); err != nil {
					return err
				}
				return errBad
			},
			func(dt domain.Tx) error { return appendTo(dt, "agent:main:b", "word two") },
		}
		release := holdWriter(t, st)
		results := make([]error, len(fns))
		var wg sync.WaitGroup
		for i, fn := range fns {
			wg.Go(func() { results[i] = st.Update(ctx, fn) })
			synctest.Wait() // queued in this order
		}
		release()
		wg.Wait()
		if s := st.Stats(); s.Retries != 1 || s.LastBatchSize != len(fns) {
			t.Fatalf("batch of %d with %d retries, want %d and 1", s.LastBatchSize, s.Retries, len(fns))
		}
		for i, err := range results {
			if want := i == 2; (err != nil) != want {
				t.Errorf("fn %d: %v", i, err)
			}
		}
		got := searchKeys(t, st, "word")
		if want := []string{"agent:main:b", "agent:main:a", "agent:main:z"}; !slices.Equal(got, want) {
			t.Errorf("word: %v, want %v", got, want)
		}
		err = st.Update(ctx, func(dt domain.Tx) error {
			_, err := dt.(*tx).exec(`INSERT INTO messages_fts (messages_fts) VALUES ('integrity-check')`)
			return err
		})
		if err != nil {
			t.Errorf("integrity-check: %v", err)
		}
	})
}
