package telegram

import (
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/go-telegram/bot/models"

	"github.com/switchboard-go/switchboard/internal/channels"
)

var me = botInfo{ID: 424242, Username: "crabline_bot"}

func TestToInbound(t *testing.T) {
	ups, err := decodeUpdates([]byte(`{"ok":true,"result":[
	 {"update_id":5,"message":{"message_id":9,"date":1,"chat":{"id":-1001,"type":"supergroup","title":"Ops","is_forum":true},
	  "from":{"id":7,"is_bot":false,"first_name":"Ada","username":"ada"},"message_thread_id":42,"is_topic_message":true,
	  "text":"@crabline_bot deploy?","entities":[{"type":"mention","offset":0,"length":13}]}},
	 {"update_id":6,"message":{"message_id":10,"date":1,"chat":{"id":7,"type":"private"},"from":{"id":7,"is_bot":false},"text":"hi"}},
	 {"update_id":7,"message":{"message_id":11,"date":1,"chat":{"id":-5,"type":"group"},"from":{"id":8,"is_bot":false},"text":"thanks",
	  "reply_to_message":{"message_id":3,"date":1,"chat":{"id":-5,"type":"group"},"from":{"id":424242,"is_bot":true}}}},
	 {"update_id":8,"message":{"message_id":12,"date":1,"chat":{"id":-5,"type":"group"},"from":{"id":9,"is_bot":true},"text":"bot talk"}},
	 {"update_id":9,"edited_message":{"message_id":12,"date":1,"chat":{"id":7,"type":"private"},"from":{"id":7,"is_bot":false},"text":"edit"}}
	]}`))
	if err != nil {
		t.Fatal(err)
	}
	var got []channels.Inbound
	for _, u := range ups {
		if in, ok := toInbound("default", me, u); ok {
			got = append(got, in)
		}
	}
	if len(got) != 3 {
		t.Fatalf("got %d messages, want 3 (bots and edits dropped)", len(got))
	}
	g := got[0]
	if g.ChatType != channels.ChatGroup || g.ChatID != "-1001" || g.ThreadID != "42" || g.To != "telegram:-1001:topic:42" ||
		!g.Mentioned || g.ChatTitle != "Ops" || g.SenderUsername != "ada" || g.EventID != "5" {
		t.Errorf("topic message: %+v", g)
	}
	if d := got[1]; d.ChatType != channels.ChatDirect || d.To != "telegram:7" || d.Mentioned {
		t.Errorf("direct message: %+v", d)
	}
	if r := got[2]; !r.Mentioned {
		t.Errorf("a reply to the bot is a mention: %+v", r)
	}
}

func TestMentions(t *testing.T) {
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"hey @crabline_bot", true}, {"@CRABLINE_BOT hi", true}, {"@crabline_bot2 hi", false}, {"no mention", false},
	} {
		if got := mentions(me, &models.Message{}, tt.text); got != tt.want {
			t.Errorf("mentions(%q) = %v", tt.text, got)
		}
	}
	if got := stripMention(me, "/new@crabline_bot now"); got != "/new now" {
		t.Errorf("stripMention command: %q", got)
	}
	if got := stripMention(me, "@crabline_bot hello"); got != "hello" {
		t.Errorf("stripMention lead: %q", got)
	}
}

func TestSplit(t *testing.T) {
	emoji := strings.Repeat("😀", 3000) // 2 UTF-16 units each
	for _, text := range []string{strings.Repeat("word ", 2000), emoji, strings.Repeat("x", 9000), "short"} {
		parts := split(text, 0)
		joined := 0
		for _, p := range parts {
			if n := len(utf16.Encode([]rune(p))); n > maxMessageUnits {
				t.Errorf("a piece has %d units", n)
			}
			if !strings.HasPrefix(p, strings.TrimSpace(p[:min(len(p), 1)])) {
				t.Errorf("bad piece start")
			}
			joined += len(strings.ReplaceAll(p, " ", ""))
		}
		if want := len(strings.ReplaceAll(text, " ", "")); joined != want {
			t.Errorf("pieces hold %d bytes of text, want %d", joined, want)
		}
	}
}

func TestToHTML(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"**bold** and *it* & <tag>", "<b>bold</b> and <i>it</i> &amp; &lt;tag&gt;"},
		{"`a<b`", "<code>a&lt;b</code>"},
		{"```go\nx := 1 < 2\n```", "<pre>x := 1 &lt; 2</pre>"},
		{"[site](https://example.com/a?b=1&c=2)", `<a href="https://example.com/a?b=1&amp;c=2">site</a>`},
		{"# Title", "<b>Title</b>"},
		{"snake_case_name stays", "snake_case_name stays"},
	} {
		if got := toHTML(tt.in); got != tt.want {
			t.Errorf("toHTML(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestParseTo(t *testing.T) {
	for _, tt := range []struct {
		to     string
		chat   any
		thread int
		bad    bool
	}{
		{"telegram:-1001", int64(-1001), 0, false},
		{"telegram:-1001:topic:42", int64(-1001), 42, false},
		{"7", int64(7), 0, false},
		{"@news", "@news", 0, false},
		{"telegram:abc", nil, 0, true},
		{"telegram:-1:topic:x", nil, 0, true},
	} {
		chat, thread, err := parseTo(tt.to)
		if (err != nil) != tt.bad || (!tt.bad && (chat != tt.chat || thread != tt.thread)) {
			t.Errorf("parseTo(%q) = %v %d %v", tt.to, chat, thread, err)
		}
	}
}

func TestAccess(t *testing.T) {
	yes, no := true, false
	cfg := &Config{DMPolicy: "allowlist", AllowFrom: []any{float64(7), "@ada"}, GroupPolicy: "allowlist",
		GroupAllowFrom: []any{"7"}, Groups: map[string]*Group{
			"-1": {RequireMention: &no, SystemPrompt: "be brief"},
			"-2": {Enabled: &no},
			"*":  {RequireMention: &yes},
		}}
	dm := func(id, user string) channels.Inbound {
		return channels.Inbound{ChatType: channels.ChatDirect, SenderID: id, SenderUsername: user}
	}
	grp := func(chat, sender string, mentioned bool) channels.Inbound {
		return channels.Inbound{ChatType: channels.ChatGroup, ChatID: chat, SenderID: sender, Mentioned: mentioned}
	}
	for _, tt := range []struct {
		name string
		c    *Config
		m    channels.Inbound
		want verdict
	}{
		{"dm listed id", cfg, dm("7", ""), allow},
		{"dm listed username", cfg, dm("8", "Ada"), allow},
		{"dm stranger", cfg, dm("9", ""), drop},
		{"dm pairing stranger", &Config{}, dm("9", ""), pair},
		{"dm open", &Config{DMPolicy: "open"}, dm("9", ""), allow},
		{"dm disabled", &Config{DMPolicy: "disabled", AllowFrom: []any{"*"}}, dm("7", ""), drop},
		{"group no mention needed", cfg, grp("-1", "7", false), allow},
		{"group disabled", cfg, grp("-2", "7", true), drop},
		{"group wildcard needs mention", cfg, grp("-3", "7", false), drop},
		{"group wildcard mentioned", cfg, grp("-3", "7", true), allow},
		{"group sender not allowed", cfg, grp("-1", "8", true), drop},
		{"group not listed", &Config{GroupPolicy: "open", Groups: map[string]*Group{"-1": {}}}, grp("-9", "7", true), drop},
		{"group open", &Config{GroupPolicy: "open"}, grp("-9", "8", true), allow},
		{"group policy disabled", &Config{GroupPolicy: "disabled"}, grp("-9", "8", true), drop},
	} {
		m := tt.m
		if got, why := access(tt.c, &m, nil); got != tt.want {
			t.Errorf("%s: %v (%s), want %v", tt.name, got, why, tt.want)
		}
	}
	m := grp("-1", "7", false)
	access(cfg, &m, nil)
	if m.SystemPrompt != "be brief" {
		t.Errorf("systemPrompt not carried: %q", m.SystemPrompt)
	}
}

func TestNoEffectKeys(t *testing.T) {
	got := NoEffectKeys("channels.telegram", map[string]any{"botToken": "x", "reactionLevel": "ack",
		"groups":    map[string]any{"-1": map[string]any{"requireMention": true, "skills": []any{}}},
		"streaming": map[string]any{"mode": "partial", "chunkMode": "length"}})
	want := []string{"channels.telegram.groups.-1.skills", "channels.telegram.reactionLevel", "channels.telegram.streaming.chunkMode"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("NoEffectKeys = %v, want %v", got, want)
	}
}

// FuzzDecodeUpdate: no update, however malformed, panics the decoder or
// the conversion, and a message's To always parses back.
func FuzzDecodeUpdate(f *testing.F) {
	f.Add([]byte(`{"update_id":1,"message":{"message_id":1,"date":1,"chat":{"id":-1,"type":"supergroup","is_forum":true},"from":{"id":2},"message_thread_id":3,"is_topic_message":true,"text":"@crabline_bot x","entities":[{"type":"mention","offset":0,"length":13}]}}`))
	f.Add([]byte(`{"update_id":1,"message":{"chat":{"id":5,"type":"private"},"from":{"id":5},"text":"hi","entities":[{"type":"mention","offset":-4,"length":99}]}}`))
	f.Add([]byte(`{"update_id":"x"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		u, err := decodeUpdate(body)
		if err != nil {
			return
		}
		in, ok := toInbound("default", me, u)
		if !ok {
			return
		}
		if _, _, err := parseTo(in.To); err != nil && in.ChatID != "0" {
			t.Errorf("To %q of a decoded message does not parse: %v", in.To, err)
		}
		_ = stripMention(me, in.Text)
	})
}
