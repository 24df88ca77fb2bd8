package a2a

import (
	"net/http/httptest"
	"net/netip"
	"testing"
)

// TestForwardedProtoOnlyFromTrustedProxies: X-Forwarded-Proto decides the
// cards' scheme only when the request comes from a proxy listed in
// gateway.trustedProxies; any other client's header is ignored.
func TestForwardedProtoOnlyFromTrustedProxies(t *testing.T) {
	proxies := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	for _, tc := range []struct {
		name    string
		proxies []netip.Prefix
		remote  string
		want    string
	}{
		{"no proxies configured", nil, "10.1.2.3:5555", "http://gw.example"},
		{"a client outside the proxies", proxies, "203.0.113.9:5555", "http://gw.example"},
		{"a trusted proxy", proxies, "10.1.2.3:5555", "https://gw.example"},
		{"a trusted IPv6 proxy", proxies, "[::1]:5555", "https://gw.example"},
	} {
		s := &Server{opts: Options{TrustedProxies: tc.proxies}}
		r := httptest.NewRequest("GET", "http://gw.example/.well-known/agent-card.json", nil)
		r.RemoteAddr = tc.remote
		r.Header.Set("X-Forwarded-Proto", "https")
		if got := s.baseURL(r); got != tc.want {
			t.Errorf("%s: base URL %q, want %q", tc.name, got, tc.want)
		}
	}
}
