package sessionkey

import (
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

func TestKind(t *testing.T) {
	def := Resolver{}
	work := Resolver{MainKey: "work"}
	tests := []struct {
		r    Resolver
		key  string
		want string
	}{
		{def, "agent:main:main", domain.KindMain},
		{def, "agent:research:main", domain.KindMain},
		{work, "agent:main:work", domain.KindMain},
		{work, "agent:main:main", domain.KindOther},
		{def, "agent:main:main:thread:1", domain.KindOther},
		{def, "agent:main:cron:nightly", domain.KindCron},
		{def, "agent:main:cron:nightly:run:42", domain.KindCron},
		{def, "agent:main:hook:0b7c4e1a-0000-4000-8000-000000000001", domain.KindHook},
		{def, "agent:main:node-pi", domain.KindNode},
		{def, "agent:main:node:pi", domain.KindNode},
		{def, "agent:main:discord:group:123", domain.KindGroup},
		{def, "agent:main:slack:channel:c1", domain.KindGroup},
		{def, "agent:main:group:123", domain.KindGroup},
		{def, "agent:main:discord:group:123:thread:9", domain.KindGroup},
		{def, "agent:main:discord:group", domain.KindOther}, // no id after the marker
		{def, "agent:group:main", domain.KindMain},          // an agent named group is not a group
		{def, "agent:channel:x", domain.KindOther},
		{def, "agent:main:subagent:abc", domain.KindOther},
		{def, "agent:main:direct:alice", domain.KindOther},
		{def, "agent:main:cronjob", domain.KindOther},
		{def, "agent:main:nodes", domain.KindOther},
		// Legacy unprefixed keys are classified on the whole key.
		{def, "main", domain.KindMain},
		{def, "cron:x", domain.KindCron},
		{def, "hook:x", domain.KindHook},
		{def, "node-x", domain.KindNode},
		{def, "discord:group:1", domain.KindGroup},
		{def, "global", domain.KindOther},
		{def, "", domain.KindOther},
	}
	for _, tt := range tests {
		if got := tt.r.Kind(tt.key); got != tt.want {
			t.Errorf("Kind(%q) with mainKey %q = %q, want %q", tt.key, tt.r.MainKey, got, tt.want)
		}
	}
}

func TestChatTypeAndChannelFromKey(t *testing.T) {
	tests := []struct {
		key      string
		chatType string
		channel  string
	}{
		{"agent:main:discord:group:123", ChatTypeGroup, "discord"},
		{"agent:main:slack:channel:c1", ChatTypeChannel, "slack"},
		{"agent:main:telegram:group:-100:thread:7", ChatTypeGroup, "telegram"},
		{"agent:main:direct:alice", ChatTypeDirect, ""},
		{"agent:main:signal:dm:bob", ChatTypeDirect, ""},
		{"agent:main:whatsapp:123@g.us", ChatTypeGroup, ""},
		{"agent:main:discord:guild-1:channel-2", ChatTypeChannel, ""},
		{"agent:main:main", "", ""},
		{"agent:main:subagent:x", "", ""},
		{"agent:main:group:1", ChatTypeGroup, ""}, // no channel segment before the marker
		{"agent:main:discord:group", "", ""},
		{"agent:group:x", "", ""},
		{"discord:group:123", ChatTypeGroup, "discord"}, // legacy
		{"", "", ""},
	}
	for _, tt := range tests {
		if got := ChatTypeFromKey(tt.key); got != tt.chatType {
			t.Errorf("ChatTypeFromKey(%q) = %q, want %q", tt.key, got, tt.chatType)
		}
		if got := ChannelFromKey(tt.key); got != tt.channel {
			t.Errorf("ChannelFromKey(%q) = %q, want %q", tt.key, got, tt.channel)
		}
	}
}

func TestDeriveChannel(t *testing.T) {
	const groupKey = "agent:main:discord:group:1"
	tests := []struct {
		name                                     string
		kind, entry, origin, delivery, last, key string
		want                                     string
	}{
		{name: "cron is internal", kind: domain.KindCron, entry: "discord", want: ChannelInternal},
		{name: "hook is internal", kind: domain.KindHook, want: ChannelInternal},
		{name: "node is internal", kind: domain.KindNode, want: ChannelInternal},
		{name: "entry channel", kind: domain.KindGroup, entry: "telegram", origin: "x", delivery: "y", last: "z", key: groupKey, want: "telegram"},
		{name: "origin provider", kind: domain.KindOther, origin: "signal", delivery: "y", last: "z", want: "signal"},
		{name: "delivery channel", kind: domain.KindMain, delivery: "webchat", last: "z", want: "webchat"},
		{name: "last channel", kind: domain.KindMain, last: "whatsapp", want: "whatsapp"},
		{name: "from group key", kind: domain.KindGroup, key: groupKey, want: "discord"},
		{name: "blank values skipped", kind: domain.KindMain, entry: " ", last: "imessage", want: "imessage"},
		{name: "unknown", kind: domain.KindMain, key: "agent:main:main", want: ChannelUnknown},
	}
	for _, tt := range tests {
		got := DeriveChannel(tt.kind, tt.entry, tt.origin, tt.delivery, tt.last, tt.key)
		if got != tt.want {
			t.Errorf("%s: DeriveChannel = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestLooksLikeSessionID(t *testing.T) {
	tests := []struct {
		s    string
		want bool
	}{
		{"0b7c4e1a-0000-4000-8000-000000000001", true},
		{"0B7C4E1A-0000-1000-8000-00000000000F", true}, // any version, any case
		{" 0b7c4e1a-0000-4000-8000-000000000001 ", true},
		{"sess-123", true}, // not key-shaped
		{"scratch", true},
		{"main", false},
		{"MAIN", false},
		{"global", false},
		{"unknown", false},
		{"current", false},
		{"agent:main:main", false},
		{"cron:x", false},
		{"hook:x", false},
		{"node-x", false},
		{"node:x", false},
		{"discord:group:1", false},
		{"slack:channel:1", false},
		{"", false},
		{"   ", false},
	}
	for _, tt := range tests {
		if got := LooksLikeSessionID(tt.s); got != tt.want {
			t.Errorf("LooksLikeSessionID(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}

func TestIsUUID(t *testing.T) {
	tests := []struct {
		s    string
		want bool
	}{
		{"0b7c4e1a-0000-4000-8000-000000000001", true},
		{"0b7c4e1a00004000800000000000000100ab", false},
		{"0b7c4e1a-0000-4000-8000-00000000000g", false},
		{"{0b7c4e1a-0000-4000-8000-000000000001}", false},
		{"0b7c4e1a-0000-4000-8000-0000000000011", false},
	}
	for _, tt := range tests {
		if got := IsUUID(tt.s); got != tt.want {
			t.Errorf("IsUUID(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}

func TestNewIDIsSessionID(t *testing.T) {
	id := domain.NewID()
	if !IsUUID(id) || !LooksLikeSessionID(id) {
		t.Fatalf("domain.NewID() = %q is not recognised as a session id", id)
	}
}

func TestIsUUIDShaped(t *testing.T) {
	tests := map[string]bool{
		"d386f8db-6fdf-4c7e":                    true,
		"D386F8DB-":                             true,
		"d386f8db-6fdf-4c7e-8a1b-0123456789ab":  true,
		" d386f8db-6fdf ":                       true,
		"d386f8db":                              false, // no dash: may be a bare word
		"d386f8db-6fdf-4c7e-8a1b-0123456789abc": false,
		"d386f8db-6fdf4c7e":                     false,
		"research-notes":                        false,
		"g386f8db-6fdf":                         false,
		"":                                      false,
	}
	for in, want := range tests {
		if got := IsUUIDShaped(in); got != want {
			t.Errorf("IsUUIDShaped(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestIsBareWord(t *testing.T) {
	tests := map[string]bool{
		"research": true, "Scratch": true, "main": false, "current": false,
		"node-pi": false, "cron:x": false, "agent:main:x": false, "": false,
	}
	for in, want := range tests {
		if got := IsBareWord(in); got != want {
			t.Errorf("IsBareWord(%q) = %v, want %v", in, got, want)
		}
	}
}

// The classifiers run for every session row built and mapped, so they walk
// a key's segments without allocating.
func TestClassifiersDoNotAllocate(t *testing.T) {
	r := Resolver{}
	for _, key := range []string{
		"agent:main:discord:guild-1:channel-2",
		"agent:main:telegram:group:123",
		"agent:main:main",
	} {
		if n := testing.AllocsPerRun(100, func() {
			_ = ChatTypeFromKey(key)
			_ = ChannelFromKey(key)
			_ = r.Kind(key)
		}); n != 0 {
			t.Errorf("classifying %q: %v allocations, want 0", key, n)
		}
	}
}
