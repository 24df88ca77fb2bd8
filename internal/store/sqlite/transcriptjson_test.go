package sqlite

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/rowcodec"
)

// TestReadTranscriptJSONMatchesReadMessages: for each generation, the
// messages ReadTranscriptJSON returns are those of ReadMessages, each
// one's JSON what rowcodec.AppendMessageJSON writes for it, bodies of
// every stored size (plain, S2, zstd) alike.
func TestReadTranscriptJSONMatchesReadMessages(t *testing.T) {
	st := openTemp(t)
	ctx := t.Context()
	gens := []domain.Generation{{Key: "agent:main:a", SessionID: "s1"}, {Key: "agent:main:a", SessionID: "s2"},
		{Key: `agent:main:"q" é`, SessionID: "s3"}, {Key: "agent:main:empty", SessionID: "s4"}}
	err := st.Update(ctx, func(tx domain.Tx) error {
		for gi, g := range gens {
			if err := tx.PutSession(domain.Session{Key: g.Key, AgentID: "main", SessionID: g.SessionID, Kind: "other", UpdatedAt: int64(gi)}); err != nil {
				return err
			}
			var msgs []domain.Message
			for j := range 3 * gi {
				text := fmt.Sprintf("m%d \"x\" <&>\n", j) + strings.Repeat("long text ", []int{0, 10, 2000}[j%3])
				msgs = append(msgs, domain.Message{Role: domain.RoleUser, Timestamp: int64(1000 + j),
					Content: domain.BlockContent(domain.TextBlock(text))})
			}
			if len(msgs) > 0 {
				msgs[0].Content = domain.TextContent("plain")
			}
			if _, err := tx.AppendMessages(g.Key, g.SessionID, msgs); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range append(gens, domain.Generation{Key: "agent:main:missing", SessionID: "x"}) {
		msgs, err := st.ReadMessages(ctx, g.Key, domain.MessageQuery{SessionID: g.SessionID})
		if err != nil {
			t.Fatal(err)
		}
		want := []domain.TranscriptMessage{}
		for i := range msgs {
			js, err := rowcodec.AppendMessageJSON(nil, &msgs[i])
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, domain.TranscriptMessage{ID: msgs[i].ID, ParentID: msgs[i].ParentID, Timestamp: msgs[i].Timestamp, JSON: js})
		}
		got, err := st.ReadTranscriptJSON(ctx, g.Key, g.SessionID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got, cmp.Transformer("json", func(b []byte) string { return string(b) })); diff != "" {
			t.Errorf("%s/%s (-ReadMessages +ReadTranscriptJSON):\n%s", g.Key, g.SessionID, diff)
		}
	}
	st.Close()
	if _, err := st.ReadTranscriptJSON(ctx, "agent:main:a", "s1"); err == nil {
		t.Error("ReadTranscriptJSON on a closed store: no error")
	}
}
