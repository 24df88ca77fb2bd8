package policy

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

func TestSendPolicy(t *testing.T) {
	discordGroupDeny := &config.SendPolicyConfig{
		Rules: []config.SendPolicyRule{
			{Match: config.SendPolicyMatch{Channel: "discord", ChatType: "group"}, Action: "deny"},
		},
		Default: "allow",
	}
	tests := []struct {
		name string
		cfg  *config.SendPolicyConfig
		s    SessionFacts
		want Decision
	}{
		{
			name: "no config allows",
			s:    SessionFacts{Key: "agent:main:discord:group:1"},
			want: Decision{true, "no session.sendPolicy configured"},
		},
		{
			name: "override deny wins over missing config",
			s:    SessionFacts{Key: "agent:main:main", Override: "deny"},
			want: Decision{false, "denied by session override (sendPolicy=deny)"},
		},
		{
			name: "override is case-insensitive and beats a deny rule",
			cfg:  discordGroupDeny,
			s:    SessionFacts{Key: "agent:main:discord:group:1", Override: " ALLOW "},
			want: Decision{true, "allowed by session override (sendPolicy=allow)"},
		},
		{
			name: "unknown override inherits",
			cfg:  discordGroupDeny,
			s:    SessionFacts{Key: "agent:main:discord:group:1", Override: "maybe"},
			want: Decision{false, "denied by session.sendPolicy.rules[0] (channel=discord chatType=group)"},
		},
		{
			name: "channel and chat type derived from key",
			cfg:  discordGroupDeny,
			s:    SessionFacts{Key: "agent:main:discord:group:123"},
			want: Decision{false, "denied by session.sendPolicy.rules[0] (channel=discord chatType=group)"},
		},
		{
			name: "every criterion must match: chat type differs",
			cfg:  discordGroupDeny,
			s:    SessionFacts{Key: "agent:main:discord:channel:123"},
			want: Decision{true, "session.sendPolicy.default=allow"},
		},
		{
			name: "entry channel beats key channel",
			cfg:  discordGroupDeny,
			s:    SessionFacts{Key: "agent:main:discord:group:1", Channel: "Telegram"},
			want: Decision{true, "session.sendPolicy.default=allow"},
		},
		{
			name: "last channel used when no channel",
			cfg:  discordGroupDeny,
			s:    SessionFacts{Key: "agent:main:main", ChatType: "group", LastChannel: "discord"},
			want: Decision{false, "denied by session.sendPolicy.rules[0] (channel=discord chatType=group)"},
		},
		{
			name: "channel beats last channel",
			cfg:  discordGroupDeny,
			s:    SessionFacts{Key: "agent:main:main", ChatType: "group", Channel: "slack", LastChannel: "discord"},
			want: Decision{true, "session.sendPolicy.default=allow"},
		},
		{
			name: "entry chat type beats key tokens",
			cfg:  discordGroupDeny,
			s:    SessionFacts{Key: "agent:main:discord:group:1", ChatType: "direct"},
			want: Decision{true, "session.sendPolicy.default=allow"},
		},
		{
			name: "dm alias matches direct",
			cfg: &config.SendPolicyConfig{Rules: []config.SendPolicyRule{
				{Match: config.SendPolicyMatch{ChatType: "direct"}, Action: "deny"},
			}},
			s:    SessionFacts{Key: "agent:main:telegram:dm:42"},
			want: Decision{false, "denied by session.sendPolicy.rules[0] (chatType=direct)"},
		},
		{
			name: "whatsapp group jid is a group",
			cfg: &config.SendPolicyConfig{Rules: []config.SendPolicyRule{
				{Match: config.SendPolicyMatch{ChatType: "group"}, Action: "deny"},
			}},
			s:    SessionFacts{Key: "agent:main:whatsapp:12345-678@g.us"},
			want: Decision{false, "denied by session.sendPolicy.rules[0] (chatType=group)"},
		},
		{
			name: "discord guild channel is a channel",
			cfg: &config.SendPolicyConfig{Rules: []config.SendPolicyRule{
				{Match: config.SendPolicyMatch{ChatType: "channel"}, Action: "deny"},
			}},
			s:    SessionFacts{Key: "agent:main:discord:guild-1:channel-2"},
			want: Decision{false, "denied by session.sendPolicy.rules[0] (chatType=channel)"},
		},
		{
			name: "keyPrefix matches the agent-stripped key",
			cfg: &config.SendPolicyConfig{Rules: []config.SendPolicyRule{
				{Match: config.SendPolicyMatch{KeyPrefix: "cron:"}, Action: "deny"},
			}},
			s:    SessionFacts{Key: "agent:ops:cron:nightly"},
			want: Decision{false, "denied by session.sendPolicy.rules[0] (keyPrefix=cron:)"},
		},
		{
			name: "keyPrefix matches the raw key, case-insensitively",
			cfg: &config.SendPolicyConfig{Rules: []config.SendPolicyRule{
				{Match: config.SendPolicyMatch{KeyPrefix: "Agent:Ops:"}, Action: "deny"},
			}},
			s:    SessionFacts{Key: "agent:ops:cron:nightly"},
			want: Decision{false, "denied by session.sendPolicy.rules[0] (keyPrefix=agent:ops:)"},
		},
		{
			name: "rawKeyPrefix ignores the stripped key",
			cfg: &config.SendPolicyConfig{Rules: []config.SendPolicyRule{
				{Match: config.SendPolicyMatch{RawKeyPrefix: "cron:"}, Action: "deny"},
			}},
			s:    SessionFacts{Key: "agent:ops:cron:nightly"},
			want: Decision{true, "no session.sendPolicy rule matched (default allow)"},
		},
		{
			name: "rawKeyPrefix matches the raw key",
			cfg: &config.SendPolicyConfig{Rules: []config.SendPolicyRule{
				{Match: config.SendPolicyMatch{RawKeyPrefix: "agent:ops:"}, Action: "deny"},
			}},
			s:    SessionFacts{Key: "agent:ops:cron:nightly"},
			want: Decision{false, "denied by session.sendPolicy.rules[0] (rawKeyPrefix=agent:ops:)"},
		},
		{
			name: "a later deny beats an earlier allow",
			cfg: &config.SendPolicyConfig{Rules: []config.SendPolicyRule{
				{Match: config.SendPolicyMatch{Channel: "discord"}, Action: "allow"},
				{Match: config.SendPolicyMatch{ChatType: "group"}, Action: "deny"},
			}},
			s:    SessionFacts{Key: "agent:main:discord:group:1"},
			want: Decision{false, "denied by session.sendPolicy.rules[1] (chatType=group)"},
		},
		{
			name: "matching allow beats default deny; first allow is the reason",
			cfg: &config.SendPolicyConfig{Rules: []config.SendPolicyRule{
				{Match: config.SendPolicyMatch{Channel: "slack"}, Action: "deny"},
				{Match: config.SendPolicyMatch{Channel: "webchat"}},
				{Match: config.SendPolicyMatch{}, Action: "allow"},
			}, Default: "deny"},
			s:    SessionFacts{Key: "agent:main:main", Channel: "webchat"},
			want: Decision{true, "allowed by session.sendPolicy.rules[1] (channel=webchat)"},
		},
		{
			name: "empty match matches every session",
			cfg: &config.SendPolicyConfig{Rules: []config.SendPolicyRule{
				{Action: "DENY"},
			}},
			s:    SessionFacts{Key: "agent:main:main"},
			want: Decision{false, "denied by session.sendPolicy.rules[0] (matches every session)"},
		},
		{
			name: "default deny",
			cfg:  &config.SendPolicyConfig{Default: "deny"},
			s:    SessionFacts{Key: "agent:main:main"},
			want: Decision{false, "session.sendPolicy.default=deny"},
		},
		{
			name: "unknown channel does not match a channel rule",
			cfg:  discordGroupDeny,
			s:    SessionFacts{Key: "agent:main:subagent:x", ChatType: "group"},
			want: Decision{true, "session.sendPolicy.default=allow"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SendPolicy(tt.cfg, tt.s)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("SendPolicy() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseSendPolicyValue(t *testing.T) {
	tests := []struct {
		in      string
		want    string
		wantErr bool
	}{
		{"allow", "allow", false},
		{"on", "allow", false},
		{" ON ", "allow", false},
		{"deny", "deny", false},
		{"off", "deny", false},
		{"Deny", "deny", false},
		{"inherit", "", false},
		{"default", "", false},
		{"reset", "", false},
		{"", "", true},
		{"maybe", "", true},
	}
	for _, tt := range tests {
		got, err := ParseSendPolicyValue(tt.in)
		if (err != nil) != tt.wantErr {
			t.Fatalf("ParseSendPolicyValue(%q) error = %v, wantErr %v", tt.in, err, tt.wantErr)
		}
		if got != tt.want {
			t.Errorf("ParseSendPolicyValue(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if err != nil && domain.ErrorCode(err) != domain.CodeInvalid {
			t.Errorf("ParseSendPolicyValue(%q) code = %q, want invalid", tt.in, domain.ErrorCode(err))
		}
	}
	_, err := ParseSendPolicyValue("maybe")
	if want := `invalid sendPolicy "maybe" (use "allow"|"deny"|"inherit", or on|off)`; err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
}
