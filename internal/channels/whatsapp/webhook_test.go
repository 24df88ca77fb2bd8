package whatsapp

import (
	"testing"
)

func TestValidSignature(t *testing.T) {
	body := []byte(`{"object":"whatsapp_business_account"}`)
	good := Sign("s", body)
	for _, tt := range []struct {
		secret, header string
		want           bool
	}{
		{"s", good, true},
		{"other", good, false},
		{"s", "sha256=00", false},
		{"s", good[len("sha256="):], false},
		{"s", "sha256=zz", false},
		{"", Sign("", body), false},
	} {
		if got := validSignature(tt.secret, body, tt.header); got != tt.want {
			t.Errorf("validSignature(%q, %q) = %v", tt.secret, tt.header, got)
		}
	}
	if validSignature("s", append(body, ' '), good) {
		t.Error("a changed body verified")
	}
}

func TestDecodePayload(t *testing.T) {
	body := `{"object":"whatsapp_business_account","entry":[{"id":"W","changes":[{"field":"messages","value":{
	"metadata":{"phone_number_id":"100"},
	"contacts":[{"wa_id":"15551112222","profile":{"name":"Ada"}}],
	"messages":[
	  {"from":"15551112222","id":"wamid.A","timestamp":"1","type":"text","text":{"body":"hi"}},
	  {"from":"15551112222","id":"wamid.B","type":"image","image":{"caption":"look"}},
	  {"from":"15551112222","id":"wamid.C","type":"sticker"},
	  {"from":"15553334444","id":"wamid.D","type":"text","group_id":"G1","text":{"body":"group hi"}}],
	"statuses":[{"id":"wamid.OUT","status":"delivered","recipient_id":"15551112222"}]}}]}]}`
	ds, err := decodePayload([]byte(body))
	if err != nil || len(ds) != 1 {
		t.Fatalf("decode = %v %v", ds, err)
	}
	d := ds[0]
	if d.phoneNumberID != "100" || len(d.statuses) != 1 || d.statuses[0].Status != "delivered" {
		t.Fatalf("decoded = %+v", d)
	}
	if len(d.messages) != 3 {
		t.Fatalf("%d messages, want 3 (the sticker has no text)", len(d.messages))
	}
	m := d.messages[0]
	if m.EventID != "wamid.A" || m.SenderID != "+15551112222" || m.SenderName != "Ada" || m.To != "whatsapp:+15551112222" ||
		m.ChatType != "direct" || m.PeerAliases[0] != "15551112222@s.whatsapp.net" {
		t.Fatalf("message = %+v", m)
	}
	if g := d.messages[2]; g.ChatType != "group" || g.ChatID != "G1" || g.To != "whatsapp:group:G1" {
		t.Fatalf("group message = %+v", g)
	}
	if _, err := decodePayload([]byte("{")); err == nil {
		t.Fatal("bad JSON decoded")
	}
}

func FuzzDecodePayload(f *testing.F) {
	f.Add([]byte(`{"entry":[{"changes":[{"value":{"messages":[{"from":"1","id":"x","text":{"body":"b"}}]}}]}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		ds, err := decodePayload(body)
		if err != nil {
			return
		}
		for _, d := range ds {
			for _, m := range d.messages {
				if m.EventID == "" || m.To == "" || m.SenderID == "" {
					t.Fatalf("decoded without ids: %+v", m)
				}
			}
		}
	})
}

func TestToWhatsApp(t *testing.T) {
	for in, want := range map[string]string{"**b** _i_ ~~s~~ `c`": "*b* _i_ ~s~ ```c```", "plain": "plain"} {
		if got := toWhatsApp(in); got != want {
			t.Errorf("toWhatsApp(%q) = %q, want %q", in, got, want)
		}
	}
}
