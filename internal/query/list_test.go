package query

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/sqlite"
)

// plainStore hides the store's tail readers: the per-row path.
type plainStore struct{ domain.Store }

// TestAttachMessagesPathsAgree: a store that reads many tails at once
// (domain.TailsJSONReader) lists, byte for byte, what the per-row reads
// list, tool results left out and the newest last.
func TestAttachMessagesPathsAgree(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "switchboard.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if _, ok := domain.Store(st).(domain.TailsJSONReader); !ok {
		t.Fatal("sqlite store has no tails reader: the test would compare one path with itself")
	}
	texts := map[string][]string{
		"agent:main:main":  {"one", `<b>tom & "jerry"</b> é ✓ \ end`, "three"},
		"agent:main:other": {"alone"},
	}
	var rows []domain.Session
	for _, key := range []string{"agent:main:main", "agent:main:other"} {
		s := domain.Session{Key: key, SessionID: key + "-id", AgentID: "main", Kind: "direct", UpdatedAt: 1}
		if err := st.Update(ctx, func(tx domain.Tx) error {
			if err := tx.PutSession(s); err != nil {
				return err
			}
			for i, text := range texts[key] {
				msgs := []domain.Message{{Role: "user", Content: domain.TextContent(text), Timestamp: int64(i + 1)}}
				if i == 0 {
					msgs = append(msgs, domain.Message{Role: domain.RoleToolResult, Content: domain.TextContent("tool out"), Timestamp: int64(i + 1)})
				}
				if _, err := tx.AppendMessages(key, s.SessionID, msgs); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, s)
	}
	for _, limit := range []int{1, 2, 20} {
		fast, slow := make([]api.SessionRow, len(rows)), make([]api.SessionRow, len(rows))
		if err := attachMessages(ctx, st, fast, rows, limit); err != nil {
			t.Fatal(err)
		}
		if err := attachMessages(ctx, plainStore{st}, slow, rows, limit); err != nil {
			t.Fatal(err)
		}
		a, b := mustJSON(t, fast), mustJSON(t, slow)
		if !bytes.Equal(a, b) {
			t.Fatalf("limit %d: tails reader and per-row reads differ:\n%s\n%s", limit, a, b)
		}
		if got := len(fast[0].Messages); got != min(limit, 3) {
			t.Fatalf("limit %d: main lists %d messages, want %d (tool results left out)", limit, got, min(limit, 3))
		}
		if got := len(fast[1].Messages); got != 1 {
			t.Fatalf("limit %d: other lists %d messages, want 1", limit, got)
		}
		last, err := fast[0].Messages[len(fast[0].Messages)-1].Message()
		if err != nil || last.Content.Text() != "three" {
			t.Fatalf("limit %d: newest listed message %+v, %v; want \"three\"", limit, last, err)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
