package signal

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/channels"
)

func TestSSEReader(t *testing.T) {
	r := newSSEReader(strings.NewReader(":keepalive\n\nevent:receive\ndata:{\"a\":1}\n\nevent: other\ndata: x\ndata: y\n\n"))
	typ, data, err := r.next()
	if err != nil || typ != "receive" || string(data) != `{"a":1}` {
		t.Fatalf("first = %q %q %v", typ, data, err)
	}
	typ, data, err = r.next()
	if err != nil || typ != "other" || string(data) != "x\ny" {
		t.Fatalf("second = %q %q %v", typ, data, err)
	}
	if _, _, err := r.next(); !errors.Is(err, io.EOF) {
		t.Fatalf("end = %v", err)
	}
}

func TestDecodeEvent(t *testing.T) {
	const self, selfUUID = "+15550000000", "0f0f0f0f-0000-4000-8000-000000000000"
	for _, tt := range []struct {
		name, data string
		want       channels.Inbound
		err        error
	}{
		{name: "direct", data: `{"envelope":{"sourceNumber":"+15551112222","sourceUuid":"AAAAAAAA-0000-4000-8000-000000000001","sourceName":"Ada","timestamp":7,"dataMessage":{"timestamp":7,"message":"hi"}}}`,
			want: channels.Inbound{Channel: "signal", AccountID: "default", EventID: "+15551112222:7", ChatType: "direct", ChatID: "+15551112222",
				ChatTitle: "Ada", SenderID: "+15551112222", SenderName: "Ada", MessageID: "7", Text: "hi", To: "signal:+15551112222",
				PeerAliases: []string{"aaaaaaaa-0000-4000-8000-000000000001"}}},
		{name: "group with a mention of the bot", data: `{"envelope":{"sourceUuid":"aaaaaaaa-0000-4000-8000-000000000001","timestamp":9,"dataMessage":{"timestamp":9,"message":"￼ hi","groupInfo":{"groupId":"AbC+/=","groupName":"Team"},"mentions":[{"uuid":"` + selfUUID + `"}]}}}`,
			want: channels.Inbound{Channel: "signal", AccountID: "default", EventID: "aaaaaaaa-0000-4000-8000-000000000001:9", ChatType: "group", ChatID: "AbC+/=",
				ChatTitle: "Team", SenderID: "aaaaaaaa-0000-4000-8000-000000000001", MessageID: "9", Text: "￼ hi", To: "signal:group:AbC+/=", Mentioned: true}},
		{name: "a reply to the bot counts as a mention", data: `{"envelope":{"sourceNumber":"+1555","timestamp":3,"dataMessage":{"message":"ok","groupInfo":{"groupId":"G"},"quote":{"authorNumber":"` + self + `"}}}}`,
			want: channels.Inbound{Channel: "signal", AccountID: "default", EventID: "+1555:3", ChatType: "group", ChatID: "G",
				SenderID: "+1555", MessageID: "3", Text: "ok", To: "signal:group:G", Mentioned: true}},
		{name: "a photo without text", data: `{"envelope":{"sourceNumber":"+1555","timestamp":4,"dataMessage":{"message":null,"attachments":[{"id":"a1.jpg","contentType":"image/jpeg","size":8}]}}}`,
			want: channels.Inbound{Channel: "signal", AccountID: "default", EventID: "+1555:4", ChatType: "direct", ChatID: "+1555",
				SenderID: "+1555", MessageID: "4", To: "signal:+1555"}},
		{name: "an attachment without an id", data: `{"envelope":{"sourceNumber":"+1555","dataMessage":{"attachments":[{"contentType":"image/jpeg"}]}}}`, err: errNotMessage},
		{name: "receipt", data: `{"envelope":{"sourceNumber":"+1555","receiptMessage":{"when":1}}}`, err: errNotMessage},
		{name: "own message", data: `{"envelope":{"sourceNumber":"` + self + `","dataMessage":{"message":"x"}}}`, err: errNotMessage},
		{name: "no source", data: `{"envelope":{"dataMessage":{"message":"x"}}}`, err: errors.New("any")},
		{name: "not json", data: `{`, err: errors.New("any")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := decodeEvent("default", self, selfUUID, []byte(tt.data))
			if tt.err != nil {
				if err == nil || (errors.Is(tt.err, errNotMessage) && !errors.Is(err, errNotMessage)) {
					t.Fatalf("err = %v, want %v", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if g, w := strings.Join(got.PeerAliases, ","), strings.Join(tt.want.PeerAliases, ","); g != w {
				t.Fatalf("aliases = %q, want %q", g, w)
			}
			got.PeerAliases, tt.want.PeerAliases = nil, nil
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func FuzzDecodeEvent(f *testing.F) {
	f.Add([]byte(`{"envelope":{"sourceNumber":"+1","dataMessage":{"message":"x","groupInfo":{"groupId":"g"}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, _, err := decodeEvent("default", "+1", "", data)
		if err == nil && (m.EventID == "" || m.To == "") {
			t.Fatalf("decoded without an event id or recipient: %+v", m)
		}
	})
}

func TestRecipient(t *testing.T) {
	for to, want := range map[string]string{"signal:+1555": "recipient", "signal:group:AbC=": "groupId", "uuid:abc": "recipient"} {
		p, err := recipient(to)
		if err != nil || p[want] == nil {
			t.Errorf("recipient(%q) = %v, %v", to, p, err)
		}
	}
	for _, to := range []string{"signal:group:", "signal:", "a b"} {
		if _, err := recipient(to); err == nil {
			t.Errorf("recipient(%q) accepted", to)
		}
	}
}
