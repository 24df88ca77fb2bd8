package signal

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/attachments"
	"github.com/switchboard-go/switchboard/internal/channels"
	"github.com/switchboard-go/switchboard/internal/channels/crabline"
)

// Files go out as signal-cli's data URIs in `send`'s attachments, with
// the text, and crabline's signal-cli-compatible daemon takes them.
func TestSendFilesAgainstCrabline(t *testing.T) {
	c := crabline.Start(t, "signal")
	a, err := New(Options{Raw: map[string]any{"account": c.Account, "httpUrl": c.BaseURL}})
	if err != nil {
		t.Fatal(err)
	}
	err = a.Send(context.Background(), channels.Outbound{To: "signal:+15550001001", Text: "the notes", IdempotencyKey: "send:f1",
		Files: []attachments.File{{Name: "notes;v2.txt", MimeType: "text/plain", Data: []byte("three lines")}}})
	if err != nil {
		t.Fatal(err)
	}
	calls := c.Calls(t, func(call crabline.Call) bool {
		raw, _ := json.Marshal(call.Body)
		return strings.Contains(string(raw), `"method":"send"`)
	})
	if len(calls) != 1 || !calls[0].Accepted {
		t.Fatalf("recorded sends %+v, want one accepted", calls)
	}
	raw, _ := json.Marshal(calls[0].Body)
	var body struct {
		Params struct {
			Message     string   `json:"message"`
			Attachments []string `json:"attachments"`
		} `json:"params"`
	}
	_ = json.Unmarshal(raw, &body)
	want := "data:text/plain;filename=notes_v2.txt;base64,dGhyZWUgbGluZXM="
	if body.Params.Message != "the notes" || len(body.Params.Attachments) != 1 || body.Params.Attachments[0] != want {
		t.Fatalf("send params %s, want the text and %s", raw, want)
	}
}
