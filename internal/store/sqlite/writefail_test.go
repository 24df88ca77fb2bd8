package sqlite

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestFullStoreIsUnavailable caps the database's size (SQLite answers
// SQLITE_FULL, as on a full disk): a write that needs room fails with a
// retryable CodeUnavailable error naming the cause, nothing of it is kept,
// and writes work again once there is room, with no restart.
func TestFullStoreIsUnavailable(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const key = "agent:main:full"
	put := func(text string, n int) error {
		return st.Update(ctx, func(tx domain.Tx) error {
			if err := tx.PutSession(domain.Session{Key: key, AgentID: "main", SessionID: "s1", Kind: "other"}); err != nil {
				return err
			}
			msgs := make([]domain.Message, n)
			for i := range msgs {
				msgs[i] = domain.Message{Role: "user", Content: domain.TextContent(strings.Repeat(text, 200))}
			}
			_, err := tx.AppendMessages(key, "s1", msgs)
			return err
		})
	}
	if err := put("a", 1); err != nil {
		t.Fatal(err)
	}
	limit := func(pages string) {
		t.Helper()
		err := st.Update(ctx, func(dt domain.Tx) error {
			_, err := dt.(*tx).exec("PRAGMA max_page_count = " + pages)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var pages string
	if err := st.rdb.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	limit(pages)
	err = put("b", 500)
	if err == nil {
		t.Fatal("a write past the size cap succeeded")
	}
	if domain.ErrorCode(err) != domain.CodeUnavailable || !strings.Contains(domain.ErrorMessage(err), "no space left on device") {
		t.Fatalf("write on a full store: code %s, message %q; want unavailable naming the cause", domain.ErrorCode(err), domain.ErrorMessage(err))
	}
	var coded *domain.Error
	if !errors.As(err, &coded) || coded.Code != domain.CodeUnavailable {
		t.Fatalf("not a coded error: %v", err)
	}
	if msgs, _ := st.ReadMessages(ctx, key, domain.MessageQuery{}); len(msgs) != 1 {
		t.Fatalf("messages after the failed write = %d, want 1 (nothing of it kept)", len(msgs))
	}
	limit("1073741823")
	if err := put("c", 500); err != nil {
		t.Fatalf("write after room returned: %v", err)
	}
	if msgs, _ := st.ReadMessages(ctx, key, domain.MessageQuery{}); len(msgs) != 501 {
		t.Fatalf("messages = %d, want 501", len(msgs))
	}
}
