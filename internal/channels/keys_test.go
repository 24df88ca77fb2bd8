package channels

import (
	"strings"
	"testing"
)

func TestWebhookKeysWhere(t *testing.T) {
	port := 0
	for _, tc := range []struct {
		keys       WebhookKeys
		addr, path string
	}{
		{WebhookKeys{}, "127.0.0.1:8788", "/hook"},
		{WebhookKeys{WebhookHost: "0.0.0.0", WebhookPort: &port, WebhookPath: "/x"}, "0.0.0.0:0", "/x"},
		{WebhookKeys{WebhookHost: "::1"}, "[::1]:8788", "/hook"},
	} {
		addr, path := tc.keys.Where(8788, "/hook")
		if addr != tc.addr || path != tc.path {
			t.Errorf("%+v: %s %s, want %s %s", tc.keys, addr, path, tc.addr, tc.path)
		}
	}
}

func TestDecodeAccounts(t *testing.T) {
	type cfg struct {
		AccessKeys
		Name string `json:"name"`
	}
	got, err := DecodeAccounts[cfg]("signal", map[string]any{"dmPolicy": "open", "allowFrom": []any{"+1555", float64(42)},
		"accounts": map[string]any{"Work": map[string]any{"name": "w"}, "home": map[string]any{"dmPolicy": "allowlist"}}})
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]AccountConfig[cfg]{}
	for _, a := range got {
		by[a.ID] = a
	}
	home, work := by["home"], by["work"]
	if len(got) != 2 || home.Path != "channels.signal.accounts.home" || home.Cfg.DMPolicy != "allowlist" ||
		work.Cfg.Name != "w" || work.Cfg.DMPolicy != "open" {
		t.Fatalf("accounts %+v", got)
	}
	if a := work.Cfg.Access(true, "signal:"); strings.Join(a.AllowFrom, ",") != "+1555,42" || !a.Mentions {
		t.Errorf("access %+v", a)
	}
	one, err := DecodeAccounts[cfg]("signal", map[string]any{"name": "solo"})
	if err != nil || len(one) != 1 || one[0].ID != DefaultAccountID || one[0].Path != "channels.signal" {
		t.Fatalf("one account: %+v %v", one, err)
	}
	_, err = DecodeAccounts[cfg]("signal", map[string]any{"accounts": map[string]any{"a": map[string]any{"name": 7}}})
	if err == nil || !strings.Contains(err.Error(), "channels.signal.accounts.a") {
		t.Errorf("a bad key's error %v does not name its account", err)
	}
	_, err = DecodeAccounts[cfg]("whatsapp", map[string]any{"textChunkLimit": -1})
	if err == nil || !strings.Contains(err.Error(), "channels.whatsapp.textChunkLimit") {
		t.Errorf("a negative textChunkLimit: %v", err)
	}
}
