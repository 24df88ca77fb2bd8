package sqlite

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestMigrateToV10: a version 9 store, whose index names each message's
// session only, is rebuilt so each message's agent is named too, and a
// search scoped to an agent of more sessions than the index names by key
// finds every one of its messages and reads none of another agent's.
func TestMigrateToV10(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "switchboard.db")
	st := openAt(t, path)
	const sessions = scopeTokensMax + 6
	if err := st.Update(ctx, func(tx domain.Tx) error {
		for i := range sessions {
			for _, agent := range []string{"main", "ops"} {
				key := fmt.Sprintf("agent:%s:s%d", agent, i)
				if err := tx.PutSession(domain.Session{Key: key, AgentID: agent, SessionID: fmt.Sprintf("%s-%d", agent, i), UpdatedAt: 1}); err != nil {
					return err
				}
				if _, err := tx.AppendMessages(key, fmt.Sprintf("%s-%d", agent, i), []domain.Message{
					{Role: domain.RoleUser, Content: domain.TextContent("needle"), Timestamp: int64(i + 1)}}); err != nil {
					return err
				}
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	// Version 9's index: the session's token alone.
	rawExec(t, path, `DROP TABLE messages_fts;
CREATE VIRTUAL TABLE messages_fts USING fts5(text, scope, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2');
PRAGMA user_version = 9;`)
	st = openAt(t, path)
	page, err := st.SearchMessages(ctx, domain.MessageSearch{Words: []string{"needle"}, AgentIDs: []string{"main"}, Limit: 1000, Scan: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Hits) != sessions || page.Scanned != sessions {
		t.Fatalf("search of agent main: %d hits, %d matches examined; want %d and %d", len(page.Hits), page.Scanned, sessions, sessions)
	}
}
