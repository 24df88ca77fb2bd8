package channels

import (
	"testing"

	"github.com/switchboard-go/switchboard/internal/config"
)

func TestResolve(t *testing.T) {
	cfg := func(edit func(c *config.Config)) *config.Config {
		c, err := config.Parse([]byte(`{agents: {list: [{id: "main"}, {id: "ops"}]}}`), nil)
		if err != nil {
			t.Fatal(err)
		}
		if edit != nil {
			edit(c)
		}
		return c
	}
	group := Inbound{Channel: "telegram", ChatType: ChatGroup, ChatID: "-1001", SenderID: "7"}
	topic := group
	topic.ThreadID = "42"
	dm := Inbound{Channel: "telegram", AccountID: "Bot2", ChatType: ChatDirect, ChatID: "7", SenderID: "7"}
	thread := Inbound{Channel: "discord", ChatType: ChatChannel, ChatID: "c1", ThreadID: "t9", GuildID: "g1"}
	tests := []struct {
		name string
		c    *config.Config
		m    Inbound
		key  string
		alts []string
	}{
		{"group", cfg(nil), group, "agent:main:telegram:group:-1001", nil},
		{"forum topic", cfg(nil), topic, "agent:main:telegram:group:-1001:topic:42", nil},
		{"discord thread", cfg(nil), thread, "agent:main:discord:channel:c1:thread:t9", []string{"agent:main:discord:channel:t9"}},
		{"dm main", cfg(nil), dm, "agent:main:main", nil},
		{"dm per-peer", cfg(func(c *config.Config) { c.Session.DMScope = "per-peer" }), dm, "agent:main:direct:7", nil},
		{"dm per-channel-peer", cfg(func(c *config.Config) { c.Session.DMScope = "per-channel-peer" }), dm, "agent:main:telegram:direct:7", nil},
		{"dm per-account-channel-peer", cfg(func(c *config.Config) { c.Session.DMScope = "per-account-channel-peer" }), dm, "agent:main:telegram:bot2:direct:7", nil},
		{"groupScope main", cfg(func(c *config.Config) { c.Session.GroupScope = "main" }), group, "agent:main:main", nil},
		{"signal group keeps its id's case", cfg(nil), Inbound{Channel: "signal", ChatType: ChatGroup, ChatID: "AbC+/w=="},
			"agent:main:signal:group:AbC+/w==", nil},
		{"dm aliases are alternates", cfg(func(c *config.Config) { c.Session.DMScope = "per-channel-peer" }),
			Inbound{Channel: "whatsapp", ChatType: ChatDirect, SenderID: "+1555", PeerAliases: []string{"1555@s.whatsapp.net", "1555"}},
			"agent:main:whatsapp:direct:+1555", []string{"agent:main:whatsapp:direct:1555@s.whatsapp.net", "agent:main:whatsapp:direct:1555"}},
		{"dm aliases under dmScope main", cfg(nil), Inbound{Channel: "whatsapp", ChatType: ChatDirect, SenderID: "+1555", PeerAliases: []string{"1555"}},
			"agent:main:main", nil},
		{"binding by channel", cfg(func(c *config.Config) {
			c.Bindings = []config.Binding{{AgentID: "ops", Match: config.BindingMatch{Channel: "telegram"}}}
		}), group, "agent:ops:telegram:group:-1001", nil},
		{"binding on another account misses", cfg(func(c *config.Config) {
			c.Bindings = []config.Binding{{AgentID: "ops", Match: config.BindingMatch{Channel: "telegram"}}}
		}), dm, "agent:main:main", nil},
		{"peer binding beats channel binding", cfg(func(c *config.Config) {
			c.Bindings = []config.Binding{
				{AgentID: "main", Match: config.BindingMatch{Channel: "telegram", AccountID: "*"}},
				{AgentID: "ops", Match: config.BindingMatch{Channel: "telegram", AccountID: "*", Peer: &config.BindingPeer{Kind: "direct", ID: "7"}},
					Session: &config.BindingSession{DMScope: "per-peer"}},
			}
		}), dm, "agent:ops:direct:7", nil},
		{"topic agent overrides", cfg(nil), func() Inbound { m := topic; m.AgentID = "ops"; return m }(), "agent:ops:telegram:group:-1001:topic:42", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Resolve(tt.c, tt.m)
			if r.SessionKey != tt.key {
				t.Errorf("key %q, want %q", r.SessionKey, tt.key)
			}
			if len(r.Alternates) != len(tt.alts) || (len(tt.alts) > 0 && r.Alternates[0] != tt.alts[0]) {
				t.Errorf("alternates %v, want %v", r.Alternates, tt.alts)
			}
		})
	}
}

func TestEnvelope(t *testing.T) {
	tests := []struct {
		m    Inbound
		want string
	}{
		{Inbound{ChatType: ChatDirect, Text: " hi "}, "hi"},
		{Inbound{ChatType: ChatGroup, SenderName: "Ada", SenderUsername: "ada", Text: "hi"}, "Ada (@ada): hi"},
		{Inbound{ChatType: ChatGroup, SenderID: "7", Text: "hi"}, "7: hi"},
		{Inbound{ChatType: ChatGroup, SenderName: "Ada", Text: "/new"}, "/new"},
	}
	for _, tt := range tests {
		if got := Envelope(tt.m); got != tt.want {
			t.Errorf("Envelope(%+v) = %q, want %q", tt.m, got, tt.want)
		}
	}
}
