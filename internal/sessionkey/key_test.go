package sessionkey

import (
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

func TestParse(t *testing.T) {
	tests := []struct {
		key     string
		want    Key
		wantErr string
	}{
		{key: "agent:main:main", want: Key{"main", "main"}},
		{key: "AGENT:Main:Discord:Group:123", want: Key{"main", "discord:group:123"}},
		{key: "agent:ops:subagent:0b7c4e1a-0000-4000-8000-000000000001", want: Key{"ops", "subagent:0b7c4e1a-0000-4000-8000-000000000001"}},
		{key: "agent:main:whatsapp:group:123@g.us", want: Key{"main", "whatsapp:group:123@g.us"}},
		{key: "agent:main:tëam", want: Key{"main", "tëam"}},
		{key: "", wantErr: "empty"},
		{key: "main", wantErr: "want agent:<agentId>:<rest>"},
		{key: "agent:main", wantErr: "want agent:<agentId>:<rest>"},
		{key: "agent:main:", wantErr: "empty after agent:<agentId>:"},
		{key: "agent::main", wantErr: `agent id ""`},
		{key: "agent:-x:main", wantErr: `agent id "-x"`},
		{key: "agent:main:a::b", wantErr: "empty ':'-separated part"},
		{key: "agent:main:a:", wantErr: "empty ':'-separated part"},
		{key: "agent:main:a b", wantErr: "whitespace"},
		{key: "agent:main:a\tb", wantErr: "whitespace"},
		{key: "agent:main:a\x00b", wantErr: "non-printing"},
		{key: "agent:main:a\u200bb", wantErr: "non-printing"},
		{key: "agent:main:\xff", wantErr: "UTF-8"},
		{key: "agent:main:" + strings.Repeat("x", MaxKeyLen), wantErr: "sessionKey is too long"},
		// The limit is in characters, as api.KeyChars says: 300 "é" is 600
		// bytes but 311 characters, and is a valid key.
		{key: "agent:main:" + strings.Repeat("é", 300), want: Key{"main", strings.Repeat("é", 300)}},
		{key: "agent:main:" + strings.Repeat("é", MaxKeyLen), wantErr: "max 512"},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			got, err := Parse(tt.key)
			if tt.wantErr != "" {
				checkInvalid(t, err, tt.wantErr)
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if got != tt.want {
				t.Fatalf("Parse = %+v, want %+v", got, tt.want)
			}
			if got.String() != strings.ToLower(tt.key) {
				t.Errorf("String() = %q, want %q", got.String(), strings.ToLower(tt.key))
			}
		})
	}
}

func TestParseMaxLength(t *testing.T) {
	key := "agent:main:" + strings.Repeat("x", MaxKeyLen-len("agent:main:"))
	if _, err := Parse(key); err != nil {
		t.Fatalf("a %d-byte key: %v", len(key), err)
	}
	if _, err := Parse(key + "x"); err == nil {
		t.Fatalf("a %d-byte key parsed", len(key)+1)
	}
}

func TestErrorMessageIsClipped(t *testing.T) {
	_, err := Parse(strings.Repeat("é", 1000))
	if err == nil {
		t.Fatal("no error")
	}
	if len(err.Error()) > 200 {
		t.Errorf("error message is %d bytes: %q", len(err.Error()), err.Error())
	}
}

func TestIsCanonical(t *testing.T) {
	tests := []struct {
		key  string
		want bool
	}{
		{"agent:main:main", true},
		{"agent:Main:main", false},
		{"main", false},
		{"agent:main:a b", false},
	}
	for _, tt := range tests {
		if got := IsCanonical(tt.key); got != tt.want {
			t.Errorf("IsCanonical(%q) = %v, want %v", tt.key, got, tt.want)
		}
	}
}

func TestSubagentKeys(t *testing.T) {
	tests := []struct {
		key   string
		isSub bool
		depth int
	}{
		{"agent:main:main", false, 0},
		{"agent:main:subagent:abc", true, 1},
		{"agent:main:subagent:abc:subagent:def", true, 2},
		{"agent:subagent:main", false, 0}, // an agent named subagent is no level
		{"agent:main:subagent", false, 0}, // no id after it
		{"agent:main:cron:subagent:x", false, 1},
		{"subagent:abc", true, 1}, // legacy unprefixed
		{"AGENT:MAIN:SUBAGENT:ABC", true, 1},
	}
	for _, tt := range tests {
		if got := IsSubagentKey(tt.key); got != tt.isSub {
			t.Errorf("IsSubagentKey(%q) = %v, want %v", tt.key, got, tt.isSub)
		}
		if got := SubagentDepth(tt.key); got != tt.depth {
			t.Errorf("SubagentDepth(%q) = %d, want %d", tt.key, got, tt.depth)
		}
	}
}

func TestNewSubagentKey(t *testing.T) {
	got := NewSubagentKey("Research", "0B7C4E1A-0000-4000-8000-000000000001")
	want := "agent:research:subagent:0b7c4e1a-0000-4000-8000-000000000001"
	if got != want {
		t.Fatalf("NewSubagentKey = %q, want %q", got, want)
	}
	if !IsCanonical(got) || !IsSubagentKey(got) || SubagentDepth(got) != 1 {
		t.Errorf("%q: canonical=%v subagent=%v depth=%d", got, IsCanonical(got), IsSubagentKey(got), SubagentDepth(got))
	}
}

// checkInvalid fails unless err is a CodeInvalid domain error containing want.
func checkInvalid(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", want)
	}
	if code := domain.ErrorCode(err); code != domain.CodeInvalid {
		t.Errorf("error code = %q, want %q (%v)", code, domain.CodeInvalid, err)
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not contain %q", err, want)
	}
}

func TestFoldKeepsSignalGroupCase(t *testing.T) {
	for in, want := range map[string]string{
		"Agent:Main:Signal:Group:AbC+/=":            "agent:main:signal:group:AbC+/=",
		"agent:main:signal:group:AbC=:thread:X":     "agent:main:signal:group:AbC=:thread:x",
		"agent:main:telegram:group:-100AbC":         "agent:main:telegram:group:-100abc",
		"agent:main:signal:direct:+1555":            "agent:main:signal:direct:+1555",
		"agent:main:signal:default:direct:UUID-ABC": "agent:main:signal:default:direct:uuid-abc",
	} {
		if got := Fold(in); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
	}
	k, err := Parse("agent:main:signal:group:AbC+/=")
	if err != nil || k.String() != "agent:main:signal:group:AbC+/=" || !IsCanonical(k.String()) {
		t.Fatalf("Parse = %v %v", k, err)
	}
	if IsCanonical("agent:main:signal:group:AbC+/=") == IsCanonical("agent:main:signal:group:abc+/=") && k.String() == "agent:main:signal:group:abc+/=" {
		t.Fatal("two Signal groups differing in case fold together")
	}
}
