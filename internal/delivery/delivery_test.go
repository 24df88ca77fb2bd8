package delivery

import (
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/attachments"
	"github.com/switchboard-go/switchboard/internal/domain"
)

func TestForChat(t *testing.T) {
	row := &domain.Session{LastChannel: "telegram", LastTo: "42"}
	ctxRow := &domain.Session{LastChannel: "telegram", LastTo: "42", Delivery: &domain.DeliveryContext{Channel: "discord", To: "7"}}
	for _, tc := range []struct {
		name                  string
		req                   api.ChatRequest
		channel, replyChannel string
		row                   *domain.Session
		want                  *Target
		wantErr               string
	}{
		{"not asked", api.ChatRequest{}, "", "", row, nil, ""},
		{"the session's last channel", api.ChatRequest{Deliver: true}, "webchat", "", row, &Target{Channel: "telegram", To: "42"}, ""},
		{"its delivery context first", api.ChatRequest{Deliver: true}, "webchat", "", ctxRow, &Target{Channel: "discord", To: "7"}, ""},
		{"the named channel", api.ChatRequest{Deliver: true, Channel: "telegram", To: "9"}, "telegram", "", nil, &Target{Channel: "telegram", To: "9"}, ""},
		{"the reply channel", api.ChatRequest{Deliver: true, ReplyChannel: "discord", ReplyTo: "8"}, "webchat", "discord", row, &Target{Channel: "discord", To: "8"}, ""},
		{"no external channel", api.ChatRequest{Deliver: true}, "webchat", "", nil, nil, "channel"},
		{"best effort", api.ChatRequest{Deliver: true, BestEffortDeliver: true}, "webchat", "", nil, nil, ""},
		{"no recipient", api.ChatRequest{Deliver: true, Channel: "slack"}, "slack", "", nil, nil, "slack"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ForChat(tc.req, tc.channel, tc.replyChannel, tc.row)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ForChat = %+v, %v; want an error naming %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil || (got == nil) != (tc.want == nil) || (got != nil && *got != *tc.want) {
				t.Errorf("ForChat = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func TestCheckOwnRecipient(t *testing.T) {
	s := domain.Session{LastChannel: "telegram", LastTo: "42"}
	if err := CheckOwnRecipient(api.ChatRequest{To: "42"}, s, "telegram", "telegram"); err != nil {
		t.Errorf("own recipient refused: %v", err)
	}
	err := CheckOwnRecipient(api.ChatRequest{To: "43"}, s, "telegram", "telegram")
	if err == nil || !strings.Contains(err.Error(), `recipient "43" on telegram is not this session's own`) {
		t.Errorf("another recipient: %v", err)
	}
	if err := CheckOwnRecipient(api.ChatRequest{ReplyTo: "42"}, s, "webchat", "discord"); err == nil {
		t.Error("a recipient on another channel was taken as the session's own")
	}
}

func TestReplyItem(t *testing.T) {
	run := domain.Run{ID: "r1", SessionKey: "agent:main:main", Status: domain.RunOK, Reply: " hi "}
	it, ok, err := ReplyItem(run, &Target{Channel: "telegram", To: "42"}, 5)
	if err != nil || !ok || it.IdempotencyKey != "deliver:r1" || it.To != "42" || string(it.Payload) != `{"text":"hi"}` {
		t.Errorf("ReplyItem = %+v, %v, %v", it, ok, err)
	}
	run.Reply = domain.NoReply
	if _, ok, _ := ReplyItem(run, &Target{Channel: "telegram", To: "42"}, 5); ok {
		t.Error("a silent reply was queued")
	}
}

func TestCheckSend(t *testing.T) {
	for _, tc := range []struct {
		req  api.DeliverRequest
		want string
	}{
		{api.DeliverRequest{To: "1"}, "message required"},
		{api.DeliverRequest{Message: "hi"}, "to required"},
		{api.DeliverRequest{Message: "hi", To: strings.Repeat("x", int(api.DeliverToChars.Max)+1)}, "to"},
		{api.DeliverRequest{Message: "hi", To: "1"}, ""},
	} {
		err := CheckSend(tc.req)
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("CheckSend(%+v) = %v; want %q", tc.req, err, tc.want)
		}
	}
}

func TestSendItemAndMirror(t *testing.T) {
	it := SendItem("agent:main:main", "telegram", "42", "k", "hello", nil, 7)
	if it.IdempotencyKey != "send:k" || it.Kind != domain.OutboxDelivery || string(it.Payload) != `{"text":"hello"}` || it.NextAttemptAt != 7 {
		t.Errorf("SendItem = %+v", it)
	}
	m := Mirror("hello")
	if m.Role != domain.RoleAssistant || m.Model != "delivery-mirror" || m.Content.Text() != "hello" {
		t.Errorf("Mirror = %+v", m)
	}
}

func TestSendItemFiles(t *testing.T) {
	files := []attachments.File{{Name: "a.txt", Data: []byte("hi")}}
	it := SendItem("agent:main:main", "telegram", "42", "k", "", files, 7)
	if want := `{"text":"","files":[{"name":"a.txt","mimeType":"text/plain","data":"aGk="}]}`; string(it.Payload) != want {
		t.Errorf("payload %s, want %s", it.Payload, want)
	}
	if got := MirrorText("see", files); got != "see\n[media sent: a.txt (text/plain)]" {
		t.Errorf("mirror text %q", got)
	}
	if err := CheckFiles("hook", files); err == nil || err.Error() != "channel hook cannot send files yet" {
		t.Errorf("files to a webhook channel: %v", err)
	}
	if err := CheckFiles("discord", files); err != nil {
		t.Errorf("files to discord: %v", err)
	}
	if err := CheckSend(api.DeliverRequest{To: "42", Attachments: []attachments.Spec{{Name: "a", Content: "x"}}}); err != nil {
		t.Errorf("a send of a file alone: %v", err)
	}
}
