package discord

import "testing"

func TestDecide(t *testing.T) {
	yes, no := true, false
	const bot, guild, chanA, chanB, thread = "900", "100", "201", "202", "301"
	guildCfg := Account{Guilds: map[string]Guild{guild: {
		Channels: map[string]GuildChannel{
			chanA: {RequireMention: &no},
			chanB: {Users: []string{"user:7"}},
		},
	}}}
	tests := []struct {
		name string
		acc  Account
		m    Message
		w    where
		want Verdict
	}{
		{"dm pairing by default", Account{}, Message{AuthorID: "5"}, where{}, Pair},
		{"dm allowlisted", Account{AllowFrom: []string{"<@5>"}}, Message{AuthorID: "5"}, where{}, Admit},
		{"dm allowlist refuses", Account{DMPolicy: "allowlist", AllowFrom: []string{"6"}}, Message{AuthorID: "5"}, where{}, Drop},
		{"dm open", Account{DMPolicy: "open", AllowFrom: []string{"*"}}, Message{AuthorID: "5"}, where{}, Admit},
		{"dm disabled", Account{DMPolicy: "disabled", AllowFrom: []string{"5"}}, Message{AuthorID: "5"}, where{}, Drop},
		{"guild not listed", Account{}, Message{GuildID: guild, AuthorID: "5"}, where{GuildID: guild, ChannelID: chanA}, Drop},
		{"group open needs a mention", Account{GroupPolicy: "open"}, Message{GuildID: guild, AuthorID: "5"}, where{GuildID: guild, ChannelID: chanA}, Drop},
		{"group open, mentioned", Account{GroupPolicy: "open"}, Message{GuildID: guild, AuthorID: "5", Content: "<@!900> hi"}, where{GuildID: guild, ChannelID: chanA}, Admit},
		{"reply to the bot counts", Account{GroupPolicy: "open"}, Message{GuildID: guild, AuthorID: "5", ReplyToAuthorID: bot}, where{GuildID: guild, ChannelID: chanA}, Admit},
		{"channel without mention", guildCfg, Message{GuildID: guild, AuthorID: "5"}, where{GuildID: guild, ChannelID: chanA}, Admit},
		{"thread inherits parent", guildCfg, Message{GuildID: guild, AuthorID: "5"}, where{GuildID: guild, ChannelID: chanA, ThreadID: thread}, Admit},
		{"channel not listed", guildCfg, Message{GuildID: guild, AuthorID: "5", MentionIDs: []string{bot}}, where{GuildID: guild, ChannelID: "999"}, Drop},
		{"user not allowed", guildCfg, Message{GuildID: guild, AuthorID: "5", MentionIDs: []string{bot}}, where{GuildID: guild, ChannelID: chanB}, Drop},
		{"user allowed", guildCfg, Message{GuildID: guild, AuthorID: "7", MentionIDs: []string{bot}}, where{GuildID: guild, ChannelID: chanB}, Admit},
		{"role allowed", Account{Guilds: map[string]Guild{"*": {RequireMention: &no, Roles: []string{"42"}}}},
			Message{GuildID: guild, AuthorID: "5", RoleIDs: []string{"42"}}, where{GuildID: guild, ChannelID: chanA}, Admit},
		{"disabled channel", Account{Guilds: map[string]Guild{guild: {Channels: map[string]GuildChannel{chanA: {Enabled: &no, RequireMention: &yes}}}}},
			Message{GuildID: guild, AuthorID: "5", MentionIDs: []string{bot}}, where{GuildID: guild, ChannelID: chanA}, Drop},
		{"group disabled", Account{GroupPolicy: "disabled", Guilds: map[string]Guild{"*": {}}}, Message{GuildID: guild, AuthorID: "5", MentionIDs: []string{bot}}, where{GuildID: guild, ChannelID: chanA}, Drop},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.acc.decide(tc.m, tc.w, bot); got.Verdict != tc.want {
				t.Fatalf("verdict %v (%s), want %v", got.Verdict, got.Reason, tc.want)
			}
		})
	}
}

func TestStripBotMention(t *testing.T) {
	if got := stripBotMention("<@900> hello <@5>\nthere", "900"); got != "hello <@5>\nthere" {
		t.Fatalf("got %q", got)
	}
}
