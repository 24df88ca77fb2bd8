package redact

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestPrefilterIsASuperset: for texts built from the patterns' pieces and
// ordinary words, Text with the prefilter gives exactly what the regexps
// alone give.
func TestPrefilterIsASuperset(t *testing.T) {
	pieces := []string{
		"hello", "world", " ", "=", ":", "\"", "'", "--", "\n", "-", "_", "é", "ſ", "\u212a", "tO\u212aEN", "bot", "x: ", "-----BEGIN ",
		"KEY", "Key", "token", "TOKEN", "secret", "SECRET", "password", "PASSWD", "api_key", "apiKey",
		"authorization", "Authorization", "bearer", "Bearer", "sk-", "ghp_", "gho_", "GHU_", "ghs_", "ghr_", "gh", "github_pat_",
		"xoxb-", "xapp-", "gsk_", "AIza", "pplx-", "npm_", "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----",
		"123456", "1234567890", "abcdefghijklmnopqrstuvwxyz0123", "ABCDEFGHIJ0123456789",
	}
	fast := New()
	full := New()
	for i := range full.rules {
		full.rules[i].need = nil
	}
	rng := rand.New(rand.NewPCG(7, 9))
	for i := range 50_000 {
		var b strings.Builder
		for range 1 + rng.IntN(8) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		want, wantChanged := full.Text(s)
		got, gotChanged := fast.Text(s)
		if got != want || gotChanged != wantChanged {
			t.Fatalf("case %d: Text(%q) = %q, %v with the prefilter; %q, %v without", i, s, got, gotChanged, want, wantChanged)
		}
	}
	for _, s := range []string{"a plain sentence about cooking pasta", "though high thought", "12345:abc", "version 1.2.3",
		"the token model run queue store"} {
		for _, ru := range fast.rules {
			if ru.need(scan(s)) {
				t.Errorf("%q would run %s", s, ru.re)
			}
		}
	}
}
