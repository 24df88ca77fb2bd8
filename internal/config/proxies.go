package config

import (
	"net/netip"
	"strings"
)

// proxyPrefix parses one gateway.trustedProxies entry: an address (one
// host) or a CIDR range.
func proxyPrefix(s string) (netip.Prefix, bool) {
	s = strings.TrimSpace(s)
	if p, err := netip.ParsePrefix(s); err == nil {
		return p.Masked(), true
	}
	if a, err := netip.ParseAddr(s); err == nil {
		a = a.Unmap()
		return netip.PrefixFrom(a, a.BitLen()), true
	}
	return netip.Prefix{}, false
}

// TrustedProxyPrefixes are gateway.trustedProxies as ranges (entries that
// do not parse, which Validate refuses, are left out).
func (g GatewayConfig) TrustedProxyPrefixes() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range g.TrustedProxies {
		if p, ok := proxyPrefix(s); ok {
			out = append(out, p)
		}
	}
	return out
}
