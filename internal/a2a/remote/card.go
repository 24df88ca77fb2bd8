package remote

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/switchboard-go/switchboard/internal/a2a/wire"
	"github.com/switchboard-go/switchboard/internal/urlguard"
)

// Endpoint is where and how a remote agent is called, as its card says.
type Endpoint struct {
	// URL is the JSON-RPC endpoint.
	URL string
	// Version is wire.Version (1.0) or wire.LegacyVersion (0.3).
	Version string
	// Name is the agent's name from its card.
	Name string
	// Streaming: the card says capabilities.streaming, so a message is
	// sent as a stream (SendStreamingMessage / message/stream).
	Streaming bool
}

// cached is a fetched card's endpoint and when it stops being fresh.
type cached struct {
	ep      Endpoint
	expires time.Time
}

// maxCardBytes bounds an agent card read from the network.
const maxCardBytes = 1 << 20

// endpoint returns r's endpoint, from the cache while it is fresh.
func (c *Client) endpoint(ctx context.Context, r Remote) (Endpoint, error) {
	c.mu.Lock()
	hit, ok := c.cards[r.cacheKey()]
	c.mu.Unlock()
	if ok && c.now().Before(hit.expires) && hit.ep.URL != "" {
		return hit.ep, nil
	}
	ep, err := c.fetchCard(ctx, r)
	if err != nil {
		return Endpoint{}, err
	}
	c.mu.Lock()
	c.cards[r.cacheKey()] = cached{ep: ep, expires: c.now().Add(c.cardTTL)}
	c.mu.Unlock()
	return ep, nil
}

// cacheKey is the card cache's key: the remote's id and card URL, so a
// remote whose URL changes is read again.
func (r Remote) cacheKey() string { return r.ID + "\x00" + r.CardURL }

// forget drops r's cached card (after the endpoint failed), so the next
// call reads it again.
func (c *Client) forget(r Remote) {
	c.mu.Lock()
	delete(c.cards, r.cacheKey())
	c.mu.Unlock()
}

// fetchCard GETs r's card, asking for the 1.0 card (a server that also
// speaks 0.3 answers a request without A2A-Version with its 0.3 card).
func (c *Client) fetchCard(ctx context.Context, r Remote) (Endpoint, error) {
	cardURL, err := r.guard().CheckURL(r.CardURL)
	if err != nil {
		return Endpoint{}, fmt.Errorf("agent card URL: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.CardURL, nil)
	if err != nil {
		return Endpoint{}, fmt.Errorf("agent card URL %q: %w", r.CardURL, err)
	}
	req.Header.Set(wire.VersionHeader, wire.Version)
	req.Header.Set("Accept", "application/json")
	if r.Token != "" {
		req.Header.Set("Authorization", "Bearer "+r.Token)
	}
	resp, err := c.client(r).Do(req)
	if err != nil {
		return Endpoint{}, unreachable(ctx, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxCardBytes+1))
	if err != nil {
		return Endpoint{}, unreachable(ctx, err)
	}
	if err := httpStatus(resp, "agent card"); err != nil {
		return Endpoint{}, err
	}
	if len(body) > maxCardBytes {
		return Endpoint{}, fmt.Errorf("%w: agent card is larger than %d bytes", ErrBadCard, maxCardBytes)
	}
	var card wire.AgentCard
	if err := json.Unmarshal(body, &card); err != nil {
		return Endpoint{}, fmt.Errorf("%w: agent card is not JSON: %v", ErrBadCard, err)
	}
	ep, err := pickEndpoint(card, r.CardURL)
	if err != nil {
		return Endpoint{}, err
	}
	ep.Streaming = card.Capabilities.Streaming != nil && *card.Capabilities.Streaming
	return pinEndpoint(r, cardURL, ep)
}

// pinEndpoint decides where the calls go: the endpoint config pins, else
// the card's — which, when a token is configured, must be on the card
// URL's own origin, so a card cannot send the token elsewhere.
func pinEndpoint(r Remote, cardURL *url.URL, ep Endpoint) (Endpoint, error) {
	if r.Endpoint != "" {
		ep.URL = r.Endpoint
		return ep, nil
	}
	u, err := url.Parse(ep.URL)
	if err != nil {
		return Endpoint{}, fmt.Errorf("%w: endpoint: %v", ErrBadCard, err)
	}
	if r.Token != "" && !urlguard.SameOrigin(u, cardURL) {
		return Endpoint{}, fmt.Errorf("%w: the card names an endpoint on another origin (%s://%s) than the card's; "+
			"the token is sent only to the card's origin: pin the endpoint in a2a.remotes[].endpoint to trust it", ErrBadCard, u.Scheme, u.Host)
	}
	return ep, nil
}

// pickEndpoint chooses the JSON-RPC interface of protocol 1.0 when the card
// lists one, else a 0.3 JSON-RPC endpoint (a 0.3 entry of
// supportedInterfaces, the 0.3 card's url with its preferredTransport, or
// one of its additionalInterfaces). Relative URLs resolve against the
// card's URL.
func pickEndpoint(card wire.AgentCard, cardURL string) (Endpoint, error) {
	abs := func(u string) (string, error) {
		base, err := url.Parse(cardURL)
		if err != nil {
			return "", err
		}
		ref, err := url.Parse(strings.TrimSpace(u))
		if err != nil {
			return "", err
		}
		out := base.ResolveReference(ref)
		if out.Scheme != "http" && out.Scheme != "https" {
			return "", fmt.Errorf("scheme %q is not http(s)", out.Scheme)
		}
		return out.String(), nil
	}
	jsonrpc := func(binding string) bool { return binding == "" || strings.EqualFold(binding, wire.BindingJSONRPC) }
	var legacy string
	for _, in := range card.SupportedInterfaces {
		if !strings.EqualFold(in.ProtocolBinding, wire.BindingJSONRPC) || in.URL == "" {
			continue
		}
		switch {
		case majorMinor(in.ProtocolVersion) == wire.Version:
			u, err := abs(in.URL)
			if err != nil {
				return Endpoint{}, fmt.Errorf("%w: supportedInterfaces url %q: %v", ErrBadCard, in.URL, err)
			}
			return Endpoint{URL: u, Version: wire.Version, Name: card.Name}, nil
		case majorMinor(in.ProtocolVersion) == wire.LegacyVersion && legacy == "":
			legacy = in.URL
		}
	}
	if legacy == "" && card.LegacyURL != "" && jsonrpc(card.LegacyPreferredTransport) {
		legacy = card.LegacyURL
	}
	if legacy == "" {
		for _, in := range card.LegacyAdditionalInterfaces {
			if strings.EqualFold(in.Transport, wire.BindingJSONRPC) && in.URL != "" {
				legacy = in.URL
				break
			}
		}
	}
	if legacy == "" {
		return Endpoint{}, fmt.Errorf("%w: no JSON-RPC interface of protocol 1.0 or 0.3 (supportedInterfaces, url)", ErrBadCard)
	}
	u, err := abs(legacy)
	if err != nil {
		return Endpoint{}, fmt.Errorf("%w: url %q: %v", ErrBadCard, legacy, err)
	}
	return Endpoint{URL: u, Version: wire.LegacyVersion, Name: card.Name}, nil
}

// majorMinor cuts a version to "major.minor" ("1.0.2" → "1.0").
func majorMinor(v string) string {
	parts := strings.SplitN(strings.TrimSpace(v), ".", 3)
	if len(parts) < 2 {
		return strings.TrimSpace(v)
	}
	return parts[0] + "." + parts[1]
}
