package transcript

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/rowcodec"
)

// TestEncodeStoredMatchesEncode: the messages as the store holds them
// (their JSON from rowcodec.AppendMessageJSON) encode to the bytes Encode
// writes for the messages themselves, and those lines are what
// json.Marshal writes for them.
func TestEncodeStoredMatchesEncode(t *testing.T) {
	h := Header{ID: "s", Timestamp: FormatTime(fixedNow), Cwd: "/ws"}
	msgs := []domain.Message{
		userMsg("00000001", "", "hello <b> & \"you\"\n\u2028", 1775037601000),
		{ID: "00000002", ParentID: "00000001", Role: domain.RoleAssistant, Timestamp: 1775037602000,
			Content:    domain.BlockContent(domain.TextBlock("hi"), domain.Block{Type: domain.BlockToolCall, ID: "c1", Name: "sessions_list", Arguments: json.RawMessage(`{"limit":5}`)}),
			Usage:      &domain.Usage{Input: 10, Output: 2, TotalTokens: 12},
			StopReason: "toolUse"},
		userMsg("00000003", "00000002", "no time of its own", 0),
	}
	want, err := Encode(h, msgs)
	if err != nil {
		t.Fatal(err)
	}
	stored := make([]domain.TranscriptMessage, len(msgs))
	for i := range msgs {
		js, err := rowcodec.AppendMessageJSON(nil, &msgs[i])
		if err != nil {
			t.Fatal(err)
		}
		stored[i] = domain.TranscriptMessage{ID: msgs[i].ID, ParentID: msgs[i].ParentID, Timestamp: msgs[i].Timestamp, JSON: js}
	}
	got, err := EncodeStored(h, stored)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("EncodeStored differs from Encode (-Encode +EncodeStored):\n%s", diff)
	}
	// Each line says what json.Marshal says of the entry.
	type marshaled struct {
		Type      string          `json:"type"`
		ID        string          `json:"id"`
		ParentID  *string         `json:"parentId"`
		Timestamp string          `json:"timestamp"`
		Message   *domain.Message `json:"message"`
	}
	lines := strings.Split(strings.TrimSuffix(string(got), "\n"), "\n")[1:]
	if len(lines) != len(msgs) {
		t.Fatalf("%d message lines for %d messages", len(lines), len(msgs))
	}
	for i := range msgs {
		m := &msgs[i]
		e := marshaled{Type: TypeMessage, ID: m.ID, Timestamp: FormatTime(fixedNow), Message: m}
		if m.Timestamp != 0 {
			e.Timestamp = FormatTime(time.UnixMilli(m.Timestamp))
		}
		if m.ParentID != "" {
			e.ParentID = &m.ParentID
		}
		js, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var a, b any
		if err := json.Unmarshal(js, &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(lines[i]), &b); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if diff := cmp.Diff(a, b); diff != "" {
			t.Errorf("line %d differs from json.Marshal's (-marshal +got):\n%s", i+1, diff)
		}
	}
}
