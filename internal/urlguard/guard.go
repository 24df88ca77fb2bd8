package urlguard

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// Policy is what a Guard lets through. The zero Policy is strict.
type Policy struct {
	// AllowPrivateNetwork admits loopback, private (RFC 1918, ULA),
	// link-local, CGNAT and unspecified addresses as targets: for
	// gateways that call agents on their own network, and for tests,
	// which serve on loopback. Config:
	// a2a.ssrfPolicy.dangerouslyAllowPrivateNetwork.
	AllowPrivateNetwork bool
}

// ErrRefused wraps every refusal of the guard, so callers can tell a
// policy refusal from a network failure.
var ErrRefused = errors.New("refused by the outbound URL policy")

// Guard checks outbound URLs and the addresses they dial.
type Guard struct {
	policy Policy
}

// New returns a Guard with policy p.
func New(p Policy) *Guard { return &Guard{policy: p} }

// CheckURL refuses a URL that is not absolute http(s), carries userinfo,
// or names a literal address the policy refuses. Names are checked again
// when dialled (Client), where their resolved address is known.
func (g *Guard) CheckURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrRefused, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("%w: scheme %q is not http or https", ErrRefused, u.Scheme)
	}
	if u.Host == "" || u.Hostname() == "" {
		return nil, fmt.Errorf("%w: no host", ErrRefused)
	}
	if u.User != nil {
		return nil, fmt.Errorf("%w: credentials in the URL", ErrRefused)
	}
	if ip, err := netip.ParseAddr(u.Hostname()); err == nil {
		if err := g.checkAddr(ip); err != nil {
			return nil, err
		}
	} else if strings.EqualFold(strings.TrimSuffix(u.Hostname(), "."), "localhost") && !g.policy.AllowPrivateNetwork {
		return nil, fmt.Errorf("%w: %s is a loopback name", ErrRefused, u.Hostname())
	}
	return u, nil
}

// checkAddr refuses an address that is not public unless the policy
// allows private networks.
func (g *Guard) checkAddr(ip netip.Addr) error {
	ip = ip.Unmap()
	if g.policy.AllowPrivateNetwork || Public(ip) {
		return nil
	}
	return fmt.Errorf("%w: %s is a loopback, private or link-local address "+
		"(set a2a.ssrfPolicy.dangerouslyAllowPrivateNetwork to allow it)", ErrRefused, ip)
}

// cgnat is the shared address space of RFC 6598.
var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// Public reports whether ip is an address on the public internet: not
// loopback, private, link-local, multicast, unspecified or CGNAT.
func Public(ip netip.Addr) bool {
	ip = ip.Unmap()
	switch {
	case !ip.IsValid(), ip.IsLoopback(), ip.IsPrivate(), ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast(),
		ip.IsInterfaceLocalMulticast(), ip.IsMulticast(), ip.IsUnspecified(), cgnat.Contains(ip):
		return false
	}
	return true
}

// control runs on every socket before it connects, with the address
// actually dialled (after DNS), so a name resolving to a refused address
// is refused as well.
func (g *Guard) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: dial address %q: %v", ErrRefused, address, err)
	}
	return g.checkAddr(ap.Addr())
}

// Client returns an HTTP client that dials only addresses the policy
// admits and never follows a redirect: the 3xx is returned as the
// response (NoRedirects), for the caller to refuse. timeout bounds each
// request (0: none; the caller's context still does).
func (g *Guard) Client(timeout time.Duration) *http.Client {
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Control: g.control}
	tr := &http.Transport{
		Proxy:                 nil, // a proxy would dial on our behalf, past the address check
		DialContext:           d.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          32,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	return &http.Client{
		Transport:     tr,
		Timeout:       timeout,
		CheckRedirect: NoRedirects,
	}
}

// NoRedirects is the CheckRedirect of every guarded client: the redirect
// response itself is the answer, its Location not followed.
func NoRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// SameOrigin reports whether a and b have the same scheme, host and port
// (default ports made explicit).
func SameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}

// Refused reports whether err is a refusal of the guard (possibly
// wrapped by net/http).
func Refused(err error) bool { return errors.Is(err, ErrRefused) }
