package bluebubbles

import (
	"errors"
	"testing"
)

func TestDecodeEvent(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		ignored    bool
		bad        bool
		to, sender string
	}{
		{name: "direct", body: `{"type":"new-message","data":{"guid":"g1","text":"hi","handle":{"address":"+1 (555) 123-4567"},"chats":[{"guid":"iMessage;-;+15551234567","style":45}]}}`,
			to: "bluebubbles:chat_guid:iMessage;-;+15551234567", sender: "+15551234567"},
		{name: "direct without a chat", body: `{"type":"new-message","data":{"guid":"g1","text":"hi","handle":{"address":"Ada@Example.com"}}}`,
			to: "bluebubbles:ada@example.com", sender: "ada@example.com"},
		{name: "group by its guid", body: `{"type":"new-message","data":{"guid":"g2","text":"hi","handle":{"address":"+1555"},"chats":[{"guid":"SMS;+;chat9"}]}}`,
			to: "bluebubbles:chat_guid:SMS;+;chat9", sender: "+1555"},
		{name: "own message", body: `{"type":"new-message","data":{"guid":"g3","text":"hi","isFromMe":true,"handle":{"address":"+1"}}}`, ignored: true},
		{name: "update", body: `{"type":"updated-message","data":{"guid":"g3"}}`, ignored: true},
		{name: "hello world", body: `{"type":"hello-world","data":"hello"}`, ignored: true},
		{name: "empty text", body: `{"type":"new-message","data":{"guid":"g4","text":"","handle":{"address":"+1"}}}`, ignored: true},
		{name: "a photo without text", body: `{"type":"new-message","data":{"guid":"g6","text":"","handle":{"address":"+1555"},"attachments":[{"guid":"at1","mimeType":"image/jpeg"}]}}`,
			to: "bluebubbles:+1555", sender: "+1555"},
		{name: "only a hidden attachment", body: `{"type":"new-message","data":{"guid":"g7","text":"","handle":{"address":"+1"},"attachments":[{"guid":"at2","hideAttachment":true}]}}`, ignored: true},
		{name: "no sender", body: `{"type":"new-message","data":{"guid":"g5","text":"x"}}`, bad: true},
		{name: "not json", body: `[`, bad: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in, _, err := decodeEvent("default", []byte(tt.body))
			switch {
			case tt.ignored:
				if !errors.Is(err, errIgnored) {
					t.Fatalf("err = %v, want ignored", err)
				}
			case tt.bad:
				if err == nil || errors.Is(err, errIgnored) {
					t.Fatalf("err = %v, want a decode error", err)
				}
			default:
				if err != nil || in.To != tt.to || in.SenderID != tt.sender || in.EventID == "" {
					t.Fatalf("in = %+v, err = %v", in, err)
				}
			}
		})
	}
}

func FuzzDecodeEvent(f *testing.F) {
	f.Add([]byte(`{"type":"new-message","data":{"guid":"g","text":"t","handle":{"address":"a"},"chats":[{"guid":"x;+;y"}]}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		in, _, err := decodeEvent("default", body)
		if err == nil && (in.EventID == "" || in.To == "" || in.SenderID == "") {
			t.Fatalf("decoded without ids: %+v", in)
		}
	})
}

func TestChatGUID(t *testing.T) {
	for to, want := range map[string]string{
		"bluebubbles:chat_guid:iMessage;+;chat1": "iMessage;+;chat1",
		"imessage:+1 555 123":                    "iMessage;-;+1555123",
		"bluebubbles:Ada@Example.com":            "iMessage;-;ada@example.com",
	} {
		if got, err := chatGUID(to); err != nil || got != want {
			t.Errorf("chatGUID(%q) = %q, %v; want %q", to, got, err, want)
		}
	}
	if _, err := chatGUID("bluebubbles:chat_guid:"); err == nil {
		t.Error("an empty chat guid was accepted")
	}
}
