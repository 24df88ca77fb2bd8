package channels

import "testing"

func TestAccessDecide(t *testing.T) {
	yes, no := true, false
	dm := Inbound{ChatType: ChatDirect, SenderID: "+1555", PeerAliases: []string{"uuid-1"}}
	grp := Inbound{ChatType: ChatGroup, ChatID: "G", SenderID: "+1555"}
	mentioned := grp
	mentioned.Mentioned = true
	tests := []struct {
		name   string
		a      Access
		m      Inbound
		paired bool
		want   Verdict
	}{
		{"pairing default asks for a code", Access{}, dm, false, Pair},
		{"pairing lets a paired sender in", Access{}, dm, true, Allow},
		{"allowFrom with the channel prefix", Access{AllowFrom: []string{"signal:+1555"}, Prefixes: []string{"signal:"}}, dm, false, Allow},
		{"allowFrom by alias", Access{DMPolicy: "allowlist", AllowFrom: []string{"UUID-1"}}, dm, false, Allow},
		{"allowlist drops a stranger", Access{DMPolicy: "allowlist", AllowFrom: []string{"+1666"}}, dm, false, Drop},
		{"dm disabled", Access{DMPolicy: "disabled", AllowFrom: []string{"*"}}, dm, false, Drop},
		{"dm open", Access{DMPolicy: "open"}, dm, false, Allow},
		{"group allowlist needs a listed sender", Access{}, grp, false, Drop},
		{"group allowlist falls back to allowFrom", Access{AllowFrom: []string{"+1555"}}, grp, false, Allow},
		{"group not in groups", Access{GroupPolicy: "open", Groups: map[string]GroupAccess{"H": {}}}, grp, false, Drop},
		{"group requireMention without mentions support", Access{GroupPolicy: "open", Groups: map[string]GroupAccess{"G": {}}}, grp, false, Allow},
		{"group requireMention gates", Access{GroupPolicy: "open", Mentions: true}, grp, false, Drop},
		{"group mentioned", Access{GroupPolicy: "open", Mentions: true}, mentioned, false, Allow},
		{"group requireMention off", Access{GroupPolicy: "open", Mentions: true, Groups: map[string]GroupAccess{"*": {RequireMention: &no}}}, grp, false, Allow},
		{"group disabled", Access{GroupPolicy: "open", Groups: map[string]GroupAccess{"G": {Enabled: &no, RequireMention: &yes}}}, mentioned, false, Drop},
		{"group's own allowFrom", Access{GroupPolicy: "open", Groups: map[string]GroupAccess{"G": {AllowFrom: []string{"+1666"}}}}, grp, false, Drop},
		{"groupPolicy disabled", Access{GroupPolicy: "disabled", AllowFrom: []string{"*"}}, mentioned, false, Drop},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := tt.m
			got, why := tt.a.Decide(&m, func(string) bool { return tt.paired })
			if got != tt.want {
				t.Fatalf("Decide = %v (%s), want %v", got, why, tt.want)
			}
		})
	}
}

func TestSplitText(t *testing.T) {
	if got := SplitText("short", 10); len(got) != 1 {
		t.Fatalf("short text split: %q", got)
	}
	long := ""
	for range 30 {
		long += "word "
	}
	pieces := SplitText(long, 12)
	total := ""
	for _, p := range pieces {
		if n := len([]rune(p)); n > 12 {
			t.Fatalf("piece %q has %d characters", p, n)
		}
		total += p + " "
	}
	if c := len(pieces); c < 12 || len(total) < len(long)-1 {
		t.Fatalf("%d pieces lose text: %q", c, pieces)
	}
	if got := SplitText("ééééé", 2); len(got) != 3 || got[0] != "éé" {
		t.Fatalf("rune split = %q", got)
	}
}
