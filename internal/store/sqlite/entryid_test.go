package sqlite

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestEntryIDsUniquePerGeneration appends to two generations of a key, in
// several Updates, with every generation drawing the same salt: the ids of
// each generation are still distinct, 8 hex digits and chained.
func TestEntryIDsUniquePerGeneration(t *testing.T) {
	st := openTemp(t)
	st.newID = func() string { return "deadbeef" }
	const key = "agent:main:main"
	appendN := func(sid string, n int) []domain.Message {
		t.Helper()
		var out []domain.Message
		err := st.Update(t.Context(), func(tx domain.Tx) error {
			msgs := make([]domain.Message, n)
			for i := range msgs {
				msgs[i] = domain.Message{Role: domain.RoleUser, Content: domain.TextContent(fmt.Sprint(i))}
			}
			var err error
			out, err = tx.AppendMessages(key, sid, msgs)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for range 3 {
		appendN("s1", 500)
		appendN("s2", 300)
	}
	hex8 := regexp.MustCompile(`^[0-9a-f]{8}$`)
	for _, sid := range []string{"s1", "s2"} {
		msgs, err := st.ReadMessages(t.Context(), key, domain.MessageQuery{SessionID: sid})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for i, m := range msgs {
			if !hex8.MatchString(m.ID) || seen[m.ID] {
				t.Fatalf("%s message %d: id %q malformed or repeated", sid, i, m.ID)
			}
			seen[m.ID] = true
			if i > 0 && m.ParentID != msgs[i-1].ID {
				t.Fatalf("%s message %d: parent %q, want %q", sid, i, m.ParentID, msgs[i-1].ID)
			}
		}
		if len(seen) != map[string]int{"s1": 1500, "s2": 900}[sid] {
			t.Errorf("%s: %d messages", sid, len(seen))
		}
	}
}
