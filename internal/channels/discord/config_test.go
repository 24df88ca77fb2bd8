package discord

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestConfigKeys(t *testing.T) {
	block := map[string]any{
		"token": "abc", "dmPolicy": "allowlist", "allowFrom": []any{"1"}, "streaming": map[string]any{"mode": "off"},
		"guilds": map[string]any{"9": map[string]any{"requireMention": true, "slug": "x",
			"channels": map[string]any{"8": map[string]any{"enabled": true, "autoThread": true}}}},
		"accounts": map[string]any{"two": map[string]any{"token": "def", "replyToMode": "all", "dmPolicy": "open"}},
	}
	got := NoEffectKeys(block)
	want := []string{"channels.discord.accounts.two.replyToMode", "channels.discord.guilds.9.channels.8.autoThread",
		"channels.discord.guilds.9.slug", "channels.discord.streaming"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("NoEffectKeys (-want +got):\n%s", d)
	}
	c, err := ParseConfig(block)
	if err != nil {
		t.Fatal(err)
	}
	if ids := c.AccountIDs(); !cmp.Equal(ids, []string{"default", "two"}) {
		t.Errorf("AccountIDs = %v", ids)
	}
	two, err := c.AccountConfig("two")
	if err != nil {
		t.Fatal(err)
	}
	if two.DMPolicy != "open" || len(two.Guilds) != 1 || len(two.AllowFrom) != 1 {
		t.Errorf("account two does not inherit and override: %+v", two)
	}
	if tok, _ := two.ResolveToken("two", nil); tok != "def" {
		t.Errorf("token %q", tok)
	}
	if _, err := c.AccountConfig("three"); err == nil {
		t.Error("an unknown account resolved")
	}
}

func TestResolveToken(t *testing.T) {
	env := func(k string) string {
		return map[string]string{"MY_TOKEN": "from-env", "DISCORD_BOT_TOKEN": "fallback"}[k]
	}
	for _, tc := range []struct {
		name, raw, account, want, err string
	}{
		{"string", `"Bot abc"`, "default", "abc", ""},
		{"env ref", `{"source":"env","provider":"default","id":"MY_TOKEN"}`, "default", "from-env", ""},
		{"env ref unset", `{"source":"env","provider":"default","id":"NOPE"}`, "default", "", "$NOPE"},
		{"file ref", `{"source":"file","provider":"default","id":"/x"}`, "default", "", "not supported"},
		{"fallback", ``, "default", "fallback", ""},
		{"no fallback for other accounts", ``, "two", "", "no token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := Account{Token: []byte(tc.raw)}
			got, err := a.ResolveToken(tc.account, env)
			if got != tc.want || (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("= %q, %v", got, err)
			}
			if tc.name == "no fallback for other accounts" && !errors.Is(err, ErrNoToken) {
				t.Errorf("err %v is not ErrNoToken", err)
			}
		})
	}
}
