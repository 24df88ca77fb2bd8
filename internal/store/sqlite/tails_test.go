package sqlite

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/rowcodec"
)

// TestReadTailsMatchesReadMessages: for every generation, limit and role
// filter, the one-query ReadTails returns exactly what ReadMessages
// returns for that generation alone.
func TestReadTailsMatchesReadMessages(t *testing.T) {
	st := openTemp(t)
	ctx := t.Context()
	roles := []string{domain.RoleUser, domain.RoleAssistant, domain.RoleToolResult, "tool"}
	var gens []domain.Generation
	err := st.Update(ctx, func(tx domain.Tx) error {
		keys := []string{"agent:main:a", `agent:main:"quoted" é`, "agent:main:long", "agent:main:empty", "agent:main:regen"}
		for ki, key := range keys {
			sid := fmt.Sprintf("sid-%d", ki)
			if err := tx.PutSession(domain.Session{Key: key, AgentID: "main", SessionID: sid, Kind: "other", UpdatedAt: int64(ki)}); err != nil {
				return err
			}
			n := []int{3, 7, 40, 0, 6}[ki]
			msgs := make([]domain.Message, n)
			for j := range msgs {
				msgs[j] = domain.Message{Role: roles[(j*7+ki)%len(roles)], Timestamp: int64(j),
					Content: domain.BlockContent(domain.TextBlock(fmt.Sprintf("m%d \"x\" <&>\n", j)))}
			}
			if j := len(msgs); j > 0 {
				msgs[0].Content = domain.TextContent("plain")
			}
			if _, err := tx.AppendMessages(key, sid, msgs); err != nil {
				return err
			}
			gens = append(gens, domain.Generation{Key: key, SessionID: sid})
		}
		// A second generation of regen: its old one stays readable by id.
		if err := tx.PutSession(domain.Session{Key: "agent:main:regen", AgentID: "main", SessionID: "sid-new", Kind: "other", UpdatedAt: 9}); err != nil {
			return err
		}
		if _, err := tx.AppendMessages("agent:main:regen", "sid-new", []domain.Message{{Role: domain.RoleUser, Content: domain.TextContent("new")}}); err != nil {
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	gens = append(gens,
		domain.Generation{Key: "agent:main:regen", SessionID: "sid-new"},
		domain.Generation{Key: "agent:main:regen"}, // the current generation
		domain.Generation{Key: "agent:main:missing", SessionID: "x"},
		domain.Generation{Key: "agent:main:missing"},
		domain.Generation{Key: "agent:main:a", SessionID: "sid-4"}, // another key's generation
		domain.Generation{Key: "agent:main:a", SessionID: "sid-0"}, // twice
	)
	for _, exclude := range [][]string{nil, {domain.RoleToolResult, "tool"}, {domain.RoleUser}} {
		for _, limit := range []int{1, 2, 5, 100} {
			got, err := st.ReadTails(ctx, gens, limit, exclude)
			if err != nil {
				t.Fatalf("ReadTails(limit %d, exclude %v): %v", limit, exclude, err)
			}
			raw, err := st.ReadTailsJSON(ctx, gens, limit, exclude)
			if err != nil {
				t.Fatalf("ReadTailsJSON(limit %d, exclude %v): %v", limit, exclude, err)
			}
			if len(got) != len(gens) || len(raw) != len(gens) {
				t.Fatalf("ReadTails returned %d tails for %d generations", len(got), len(gens))
			}
			for i, g := range gens {
				want, err := st.ReadMessages(ctx, g.Key, domain.MessageQuery{SessionID: g.SessionID, Limit: limit, ExcludeRoles: exclude})
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got[i], want) {
					t.Fatalf("limit %d exclude %v, %+v:\nReadTails    %+v\nReadMessages %+v", limit, exclude, g, got[i], want)
				}
				// ReadTailsJSON: the same messages, as json.Marshal writes
				// them, behind their ids.
				if len(raw[i]) != len(want) {
					t.Fatalf("limit %d exclude %v, %+v: ReadTailsJSON has %d messages, want %d", limit, exclude, g, len(raw[i]), len(want))
				}
				for j, m := range want {
					js, err := json.Marshal(m)
					if err != nil {
						t.Fatal(err)
					}
					id, _ := json.Marshal(m.ID)
					js = append(append([]byte(`{"id":`), id...), append([]byte{','}, js[1:]...)...)
					var esc bytes.Buffer // the stored JSON leaves <, > and & as they are
					json.HTMLEscape(&esc, raw[i][j].JSON)
					if r := raw[i][j]; r.Seq != m.Seq || r.ID != m.ID || esc.String() != string(js) {
						t.Fatalf("limit %d exclude %v, %+v, message %d:\nReadTailsJSON %d %s %s\nwant          %d %s %s", limit, exclude, g, j, r.Seq, r.ID, r.JSON, m.Seq, m.ID, js)
					}
				}
			}
		}
	}
	if tails, err := st.ReadTails(ctx, nil, 5, nil); err != nil || len(tails) != 0 {
		t.Fatalf("no generations: %v %v", tails, err)
	}
	if _, err := st.ReadTails(ctx, gens, 0, nil); domain.ErrorCode(err) != domain.CodeInvalid {
		t.Fatalf("limit 0: %v, want an invalid-argument error", err)
	}
	if _, err := st.ReadTailsJSON(ctx, gens, 0, nil); domain.ErrorCode(err) != domain.CodeInvalid {
		t.Fatalf("ReadTailsJSON limit 0: %v, want an invalid-argument error", err)
	}
	if _, err := st.ReadTailsJSON(ctx, gens, 1, make([]string, maxTailRoles+1)); domain.ErrorCode(err) != domain.CodeInvalid || !strings.Contains(err.Error(), "excluded roles") {
		t.Fatalf("too many roles: %v, want an invalid-argument error naming them", err)
	}
}

// TestSortTails: rows out of order (a generation's rowids need not follow
// its seqs, for example after an import) come out by generation, then seq.
func TestSortTails(t *testing.T) {
	gen := []int{1, 0, 1, 0, 2, 1}
	seqs := []int64{9, 4, 3, 1, 7, 5}
	msgs := make([]domain.Message, len(seqs))
	for i, s := range seqs {
		msgs[i] = domain.Message{Seq: s, ID: fmt.Sprint(s)}
	}
	sortTails(msgs, gen, func(m domain.Message) int64 { return m.Seq })
	wantGen, wantSeq := []int{0, 0, 1, 1, 1, 2}, []int64{1, 4, 3, 5, 9, 7}
	for i := range msgs {
		if gen[i] != wantGen[i] || msgs[i].Seq != wantSeq[i] || msgs[i].ID != fmt.Sprint(wantSeq[i]) {
			t.Fatalf("row %d: gen %d seq %d id %s, want gen %d seq %d", i, gen[i], msgs[i].Seq, msgs[i].ID, wantGen[i], wantSeq[i])
		}
	}
}

// TestReadTailsJSONPlainBodies: rows of a store from before schema version
// 6 hold plain JSON TEXT; ReadTailsJSON passes them through like the
// compressed ones, behind their ids.
func TestReadTailsJSONPlainBodies(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "switchboard.db")
	st, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	key, sid := "agent:main:old", "sid-old"
	err = st.Update(ctx, func(tx domain.Tx) error {
		if err := tx.PutSession(domain.Session{Key: key, AgentID: "main", SessionID: sid, Kind: "other"}); err != nil {
			return err
		}
		_, err := tx.AppendMessages(key, sid, []domain.Message{
			{Role: domain.RoleUser, Content: domain.TextContent("one <&>"), Timestamp: 1},
			{Role: domain.RoleAssistant, Content: domain.TextContent("two"), Timestamp: 2},
			{Role: domain.RoleUser, Content: domain.TextContent("three"), Timestamp: 3},
		})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	want, err := st.ReadMessages(ctx, key, domain.MessageQuery{})
	if err != nil || len(want) != 3 {
		t.Fatalf("read = %d messages, %v", len(want), err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	for _, m := range want[:2] {
		js, err := rowcodec.AppendMessageJSON(nil, &m)
		if err != nil {
			t.Fatal(err)
		}
		rawExec(t, path, fmt.Sprintf(`UPDATE messages SET body = '%s' WHERE seq = %d`, strings.ReplaceAll(string(js), "'", "''"), m.Seq))
	}
	st, err = Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var texts int
	if err := st.rdb.QueryRowContext(ctx, `SELECT count(*) FROM messages WHERE typeof(body) = 'text'`).Scan(&texts); err != nil || texts != 2 {
		t.Fatalf("%d plain bodies (%v), want 2", texts, err)
	}
	tails, err := st.ReadTailsJSON(ctx, []domain.Generation{{Key: key}}, 5, nil)
	if err != nil || len(tails) != 1 || len(tails[0]) != 3 {
		t.Fatalf("ReadTailsJSON = %v, %v", tails, err)
	}
	for i, m := range want {
		js, _ := json.Marshal(m)
		id, _ := json.Marshal(m.ID)
		js = append(append([]byte(`{"id":`), id...), append([]byte{','}, js[1:]...)...)
		var esc bytes.Buffer
		json.HTMLEscape(&esc, tails[0][i].JSON)
		if esc.String() != string(js) {
			t.Fatalf("message %d:\n%s\nwant\n%s", i, esc.String(), js)
		}
	}
}
