package config

import (
	"strings"
	"testing"
)

func TestDiscordBlock(t *testing.T) {
	ok := `{channels: {discord: {
		token: {source: "env", provider: "default", id: "DISCORD_BOT_TOKEN"},
		dmPolicy: "allowlist", allowFrom: ["123456789012345678"], groupPolicy: "open",
		guilds: {"223456789012345678": {requireMention: false, users: ["1"], roles: ["2"], slug: "x",
			channels: {"323456789012345678": {requireMention: true, enabled: true, autoThread: true}}}},
		intents: {messageContent: true, guildMembers: false},
		streaming: {mode: "off"}, replyToMode: "first", textChunkLimit: 1500,
		apiRoot: "http://127.0.0.1:9/api", gatewayUrl: "ws://127.0.0.1:9/gateway",
		accounts: {two: {token: "abc", apiRoot: "http://127.0.0.1:9/api"}},
	}}}`
	if _, err := Parse([]byte(ok), func(string) string { return "" }); err != nil {
		t.Fatalf("a block OpenClaw accepts (plus apiRoot/gatewayUrl) was refused: %v", err)
	}
	for _, tc := range []struct{ name, cfg, path, msg string }{
		{"key outside the schema", `{channels: {discord: {tokn: "x"}}}`, "channels.discord.tokn", "unknown key"},
		{"dmPolicy", `{channels: {discord: {dmPolicy: "everyone"}}}`, "channels.discord.dmPolicy", "want one of"},
		{"guild channel key", `{channels: {discord: {guilds: {"1": {channels: {"2": {requireMentoin: true}}}}}}}`, "channels.discord.guilds.1.channels.2.requireMentoin", "unknown key"},
		{"gatewayUrl scheme", `{channels: {discord: {gatewayUrl: "http://x"}}}`, "channels.discord.gatewayUrl", "must match"},
		{"secret source", `{channels: {discord: {token: {source: "vault", provider: "default", id: "X"}}}}`, "channels.discord.token", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.cfg), func(string) string { return "" })
			if err == nil || !strings.Contains(err.Error(), tc.path) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v, want %s: %s", err, tc.path, tc.msg)
			}
		})
	}
}
