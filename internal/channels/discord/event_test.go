package discord

import (
	"errors"
	"testing"
)

func TestDecodeMessage(t *testing.T) {
	m, err := decodeMessage([]byte(`{"id":"135000000000000100","channel_id":"135000000000000010","guild_id":"135000000000000011",
		"author":{"id":"135000000000000200","username":"ada","global_name":"Ada L"},"content":"<@135000000000000001> hi",
		"mentions":[{"id":"135000000000000001","username":"bot"}],"member":{"roles":["135000000000000300"]},
		"referenced_message":{"id":"135000000000000099","channel_id":"135000000000000010","author":{"id":"135000000000000001","username":"bot"},"content":"x"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if m.GuildID != "135000000000000011" || m.AuthorName != "Ada L" || len(m.MentionIDs) != 1 ||
		m.ReplyToAuthorID != "135000000000000001" || len(m.RoleIDs) != 1 {
		t.Fatalf("decoded %+v", m)
	}
	for _, bad := range []string{`{}`, `{"id":"1","channel_id":"2"}`, `[]`, `{"id":"x"}`, `nul`} {
		if _, err := decodeMessage([]byte(bad)); err == nil {
			t.Errorf("%s decoded", bad)
		}
	}
	if _, err := decodeMessage([]byte(`{"id":"1","channel_id":"2","author":{}}`)); !errors.Is(err, ErrNotAMessage) {
		t.Errorf("a message without an author: %v", err)
	}
}

// FuzzDecodeEvent feeds arbitrary gateway frames through the decoders the
// read loop uses: nothing panics, and a decoded message has its ids.
func FuzzDecodeEvent(f *testing.F) {
	f.Add([]byte(`{"op":0,"t":"MESSAGE_CREATE","s":2,"d":` + testMessage + `}`))
	f.Add([]byte(`{"op":0,"t":"GUILD_CREATE","s":1,"d":{"id":"1","name":"g","channels":[{"id":"2","type":0}],"threads":[{"id":"3","type":11,"parent_id":"2"}]}}`))
	f.Add([]byte(`{"op":10,"d":{"heartbeat_interval":45000}}`))
	f.Add([]byte(`{"op":9,"d":false}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		fr, err := decodeFrame(b)
		if err != nil {
			return
		}
		if m, err := decodeMessage(fr.D); err == nil && (m.ID == "" || m.ChannelID == "" || m.AuthorID == "") {
			t.Fatalf("decoded a message without ids: %+v", m)
		}
		acc := &account{channels: map[string]channelInfo{}, guilds: map[string]string{}}
		acc.dispatchCache(fr.T, fr.D)
	})
}
