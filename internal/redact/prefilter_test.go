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

// TestScanMatchesReference: scan finds exactly the features scanReference
// does, for texts built from the features' pieces, near misses and
// arbitrary bytes.
func TestScanMatchesReference(t *testing.T) {
	pieces := []string{
		"a", "k", "K", "s", "S", "t", "p", "g", "G", "x", "n", "A", "b", " ", "=", ":", "\"", "-", "--", "-----BEGIN ", "-----BEGIN",
		"key", "KEY", "kEy", "ke", "token", "TOKEN", "toke", "secret", "SECRET", "secre", "passw", "PASSW", "pass",
		"authorization", "AUTHORIZATION", "authorizatio", "bearer", "BEARER", "beare",
		"sk-", "sk", "Sk-", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "ghx_", "Ghp_", "gh", "github_pat_", "github_pa", "gsk_", "gsk",
		"xox", "xo", "xapp-", "xapp", "AIza", "aIza", "AIz", "pplx-", "pplx", "npm_", "npm",
		"1", "123456", "12345", "ſ", "\u212a", "é", "\xff", "\x00", "_", "[", "`", "{", "~", "\x4b", "\xcb",
	}
	rng := rand.New(rand.NewPCG(3, 5))
	for i := range 200_000 {
		var b strings.Builder
		for range 1 + rng.IntN(10) {
			if rng.IntN(20) == 0 {
				b.WriteByte(byte(rng.IntN(256)))
				continue
			}
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		if got, want := scan(s), scanReference(s); got != want {
			t.Fatalf("case %d: scan(%q) = %b, reference %b", i, s, got, want)
		}
	}
}

// refWordsCI are the words of fWordCI, lower case.
var refWordsCI = [...]string{"key", "token", "secret", "passw"}

// refPrefixes are the token prefixes of fPrefix (case-sensitive, as prefixRe).
var refPrefixes = [...]string{"sk-", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xox", "xapp-", "gsk_", "AIza", "pplx-", "npm_"}

// scanReference is the first one-pass scan, kept as the specification of
// scan: simpler, and slower (every word and prefix tried at every letter
// that could start one).
func scanReference(s string) features {
	var f features
	if strings.ContainsRune(s, 'ſ') || strings.ContainsRune(s, '\u212a') {
		f |= fFold
	}
	digits := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' {
			digits++
			continue
		}
		if c == ':' && digits >= 6 {
			f |= fTelegram
		}
		digits = 0
		rest := s[i:]
		switch c {
		case '=':
			f |= fEquals
			continue
		case ':':
			f |= fColon
			continue
		case '"':
			f |= fQuote
			continue
		case '-':
			if strings.HasPrefix(rest, "--") {
				f |= fDashDash
			}
			if strings.HasPrefix(rest, "-----BEGIN ") {
				f |= fPEM
			}
			continue
		}
		lc := c | 0x20 // ASCII lower case (only compared with letters below)
		switch lc {
		case 'k', 't', 's', 'p':
			for _, w := range refWordsCI {
				if len(rest) >= len(w) && strings.EqualFold(rest[:len(w)], w) {
					f |= fWordCI
					if strings.ToUpper(w) == rest[:len(w)] {
						f |= fWordUpper
					}
				}
			}
		case 'a':
			if len(rest) >= 13 && strings.EqualFold(rest[:13], "authorization") {
				f |= fAuthorization
			}
		case 'b':
			if len(rest) >= 6 && strings.EqualFold(rest[:6], "bearer") {
				f |= fBearer
			}
		}
		switch c {
		case 's', 'g', 'x', 'A', 'p', 'n':
			for _, p := range refPrefixes {
				if strings.HasPrefix(rest, p) {
					f |= fPrefix
				}
			}
		}
	}
	return f
}

// BenchmarkScan is scan over an ordinary English paragraph (what most
// indexed messages are); BenchmarkScanReference the first version.
func BenchmarkScan(b *testing.B)          { benchScan(b, scan) }
func BenchmarkScanReference(b *testing.B) { benchScan(b, scanReference) }

func benchScan(b *testing.B, fn func(string) features) {
	s := strings.Repeat("The session stores its transcript and the assistant answers with a summary of the tool output, "+
		"then it asks whether the next step should spawn a sub-agent or wait for the previous run to finish. ", 3)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		if fn(s) != 0 {
			b.Fatal("features in plain text")
		}
	}
}
