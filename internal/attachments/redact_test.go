package attachments

import (
	"encoding/json"
	"testing"
)

func TestRedactArguments(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{
			name: "content replaced, metadata kept, extras dropped",
			in:   `{"task":"t","attachments":[{"name":"a.txt","content":"secret","encoding":"utf8","mimeType":"text/plain","extra":"x"},{"name":"b","content":"c2VjcmV0"}]}`,
			want: `{"attachments":[{"content":"__SWITCHBOARD_REDACTED__","encoding":"utf8","mimeType":"text/plain","name":"a.txt"},{"content":"__SWITCHBOARD_REDACTED__","name":"b"}],"task":"t"}`,
		},
		{
			name: "no attachments: unchanged bytes",
			in:   `{"task": "t",  "label":"x"}`,
			want: `{"task": "t",  "label":"x"}`,
		},
		{
			name: "null attachments: unchanged",
			in:   `{"task":"t","attachments":null}`,
			want: `{"task":"t","attachments":null}`,
		},
		{
			name: "non-array attachments replaced whole",
			in:   `{"attachments":{"name":"a","content":"secret"}}`,
			want: `{"attachments":"__SWITCHBOARD_REDACTED__"}`,
		},
		{
			name: "non-object entries replaced",
			in:   `{"attachments":["secret",{"name":"a"}]}`,
			want: `{"attachments":["__SWITCHBOARD_REDACTED__",{"content":"__SWITCHBOARD_REDACTED__","name":"a"}]}`,
		},
		{name: "not an object: unchanged", in: `[1,2]`, want: `[1,2]`},
		{name: "invalid JSON: unchanged", in: `{"attachments":`, want: `{"attachments":`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := RedactArguments(json.RawMessage(tt.in))
			if string(got) != tt.want {
				t.Errorf("RedactArguments() = %s, want %s", got, tt.want)
			}
		})
	}
}
