package telegram

import "testing"

func TestStreamModeOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		raw  map[string]any
		want string
	}{
		{"default partial, as in OpenClaw", map[string]any{}, "partial"},
		{"streaming.mode", map[string]any{"streaming": map[string]any{"mode": "partial"}}, "partial"},
		{"legacy streamMode", map[string]any{"streamMode": "block"}, "block"},
		{"streaming.mode wins", map[string]any{"streaming": map[string]any{"mode": "off"}, "streamMode": "partial"}, "off"},
		{"account's own", map[string]any{"accounts": map[string]any{"a": map[string]any{"streamMode": "partial"}}}, "partial"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := parseConfig(tc.raw)
			if err != nil {
				t.Fatal(err)
			}
			acs := accounts(c, func(string) string { return "" })
			if got := streamModeOf(&acs[0].cfg); got != tc.want {
				t.Errorf("mode %q, want %q", got, tc.want)
			}
		})
	}
	if keys := NoEffectKeys("channels.telegram", map[string]any{"streamMode": "partial", "streaming": map[string]any{"mode": "partial"}}); len(keys) != 0 {
		t.Errorf("streaming keys listed as without effect: %v", keys)
	}
}
