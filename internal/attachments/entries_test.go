package attachments

import (
	"encoding/json"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

func TestCheckEntries(t *testing.T) {
	for _, tc := range []struct {
		name, raw, want string
	}{
		{"absent", ``, ""},
		{"null", `null`, ""},
		{"empty", `[]`, ""},
		{"content given", `[{"name":"a.txt","content":"hi"}]`, ""},
		{"empty content is a file", `[{"name":"a.txt","content":""}]`, ""},
		{"no content", `[{"name":"a.txt"}]`, "attachments[0].content required"},
		{"null content", `[{"name":"a.txt","content":"x"},{"name":"b.txt","content":null}]`, "attachments[1].content required"},
		{"number content", `[{"name":"a.txt","content":"x"},{"name":"b.txt","content":5}]`, "attachments[1].content must be a string"},
		{"entry not an object", `[{"name":"a.txt","content":"x"},"b.txt"]`, "attachments[1] must be an object"},
		{"not an array", `{"name":"a.txt"}`, "attachments must be an array"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckEntries(json.RawMessage(tc.raw))
			got := ""
			if err != nil {
				got = domain.ErrorMessage(err)
				if domain.ErrorCode(err) != domain.CodeInvalid {
					t.Errorf("code %q, want invalid", domain.ErrorCode(err))
				}
			}
			if got != tc.want {
				t.Errorf("CheckEntries(%s) = %q, want %q", tc.raw, got, tc.want)
			}
		})
	}
}
