package api

import "testing"

func TestNormalizeThinking(t *testing.T) {
	for in, want := range map[string]string{
		"": "", "high": "high", " High ": "high", "OFF": "off", "on": "low", "Enabled": "low",
		"min": "minimal", "med": "medium", "mid": "medium", "huge": "huge", "Huge": "huge",
	} {
		if got := NormalizeThinking(in); got != want {
			t.Errorf("NormalizeThinking(%q) = %q, want %q", in, got, want)
		}
	}
}
