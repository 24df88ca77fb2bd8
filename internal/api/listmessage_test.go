package api

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

func TestAppendListMessage(t *testing.T) {
	tests := []struct {
		name, id, msg, want, err string
	}{
		{"plain", "m1", `{"role":"user","content":"hi","timestamp":1}`, `{"id":"m1","role":"user","content":"hi","timestamp":1}`, ""},
		{"empty object", "m2", `{}`, `{"id":"m2"}`, ""},
		{"spaces", "m3", " { \"role\":\"user\" } \n", `{"id":"m3","role":"user"}`, ""},
		{"escaped id", "a\"<\n", `{"role":"user"}`, `{"id":"a\"\u003c\n","role":"user"}`, ""},
		{"not an object", "m4", `["role"]`, "", `message "m4": stored JSON is not an object`},
		{"empty", "m5", ``, "", `message "m5": stored JSON is not an object`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			arena := []byte("prefix")
			arena, lm, err := AppendListMessage(arena, tt.id, []byte(tt.msg))
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				if string(arena) != "prefix" {
					t.Fatalf("arena = %q after an error", arena)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(lm)
			if err != nil || string(got) != tt.want || lm.ID != tt.id {
				t.Fatalf("Marshal = %s, %v (id %q), want %s", got, err, lm.ID, tt.want)
			}
			if !strings.HasPrefix(string(arena), "prefix") || !strings.HasSuffix(string(arena), string(lm.js)) {
				t.Fatalf("arena = %q", arena)
			}
		})
	}
}

// TestListMessageRoundTrip: a message listed, encoded, and read back by a
// client is the same message, and encodes as sessions_history does.
func TestListMessageRoundTrip(t *testing.T) {
	m := domain.Message{ID: "abc", Role: domain.RoleAssistant, Timestamp: 7, Model: "m <1>",
		Content: domain.BlockContent(domain.TextBlock("a & b"), domain.TextBlock("c")),
		Usage:   &domain.Usage{Input: 3, Output: 4, TotalTokens: 7}}
	lm, err := ListMessageOf(m)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.MarshalIndent([]ListMessage{lm}, "", "  ")
	want, _ := json.MarshalIndent([]HistoryMessage{{ID: m.ID, Message: m}}, "", "  ")
	if string(got) != string(want) {
		t.Fatalf("list message\n%s\nwant (history message)\n%s", got, want)
	}
	var back []ListMessage
	if err := json.Unmarshal(got, &back); err != nil || len(back) != 1 || back[0].ID != "abc" {
		t.Fatalf("Unmarshal = %+v, %v", back, err)
	}
	dm, err := back[0].Message()
	if err != nil || dm.ID != "abc" || dm.Content.Text() != m.Content.Text() || dm.Usage == nil || dm.Usage.TotalTokens != 7 || dm.Model != m.Model {
		t.Fatalf("Message() = %+v, %v", dm, err)
	}
	again, _ := json.MarshalIndent(back, "", "  ")
	if string(again) != string(want) {
		t.Fatalf("re-encoded\n%s\nwant\n%s", again, want)
	}
	if err := json.Unmarshal([]byte(`["x"]`), &back); err == nil {
		t.Fatal("a string decoded as a list message")
	}
	if b, err := json.Marshal(ListMessage{ID: "z"}); err != nil || string(b) != `{"id":"z"}` {
		t.Fatalf("id-only message = %s, %v", b, err)
	}
}

func TestListMessageJSON(t *testing.T) {
	lm, err := ListMessageJSON("m1", []byte(`{"id":"m1","role":"user"}`))
	if b, _ := json.Marshal(lm); err != nil || string(b) != `{"id":"m1","role":"user"}` || lm.ID != "m1" {
		t.Fatalf("ListMessageJSON = %s, %v", b, err)
	}
	for _, bad := range []string{`{"role":"user"}`, `{"id":"m1"`, `{"id":`} {
		if _, err := ListMessageJSON("m1", []byte(bad)); err == nil || !strings.Contains(err.Error(), `message "m1"`) {
			t.Fatalf("ListMessageJSON(%s) = %v, want an error naming the message", bad, err)
		}
	}
}
