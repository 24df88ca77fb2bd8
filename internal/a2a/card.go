package a2a

import (
	"encoding/json"
	"net/http"
	"net/netip"
	"strings"

	"github.com/switchboard-go/switchboard/internal/a2a/wire"
)

// bearerScheme is the name of the gateway's Bearer scheme in cards.
const bearerScheme = "bearer"

// serveCard writes the agent card of a.
func (s *Server) serveCard(w http.ResponseWriter, r *http.Request, a Agent) {
	card := s.Card(s.baseURL(r), a)
	b, err := json.Marshal(card)
	if err != nil {
		http.Error(w, "encoding the card: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(append(b, '\n'))
}

// baseURL is the gateway's public base URL: a2a.publicUrl, else the scheme
// and Host of r (https when the request came over TLS or a proxy said so).
func (s *Server) baseURL(r *http.Request) string {
	if u := strings.TrimRight(s.opts.PublicURL, "/"); u != "" {
		return u
	}
	scheme := "http"
	if r.TLS != nil || (fromTrustedProxy(r, s.opts.TrustedProxies) && strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")) {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// fromTrustedProxy reports whether r's peer is one of the proxies whose
// forwarding headers are believed (gateway.trustedProxies).
func fromTrustedProxy(r *http.Request, proxies []netip.Prefix) bool {
	if len(proxies) == 0 {
		return false
	}
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	ip := ap.Addr().Unmap()
	for _, p := range proxies {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// EndpointURL is the JSON-RPC URL of agent id under base.
func EndpointURL(base, id string) string { return strings.TrimRight(base, "/") + AgentsPrefix + id }

// Card builds the agent card of a, with base as the gateway's URL. It
// carries both the 1.0 fields (supportedInterfaces, securityRequirements)
// and the 0.3 ones (url, protocolVersion, preferredTransport, security) so
// either generation of client finds the endpoint; both versions answer on
// the same URL.
func (s *Server) Card(base string, a Agent) wire.AgentCard {
	url := EndpointURL(base, a.ID)
	yes := true
	push := s.opts.Push != nil
	name := a.Name
	if name == "" {
		name = a.ID
	}
	desc := a.Description
	if desc == "" {
		desc = "switchboard agent " + a.ID
	}
	skills := a.Skills
	if len(skills) == 0 {
		skills = []wire.AgentSkill{{ID: "chat", Name: "Chat", Description: "Talk to " + name + "; each contextId is one conversation.", Tags: []string{"chat"}}}
	}
	for i := range skills {
		if skills[i].Tags == nil {
			skills[i].Tags = []string{}
		}
	}
	return wire.AgentCard{
		Name:        name,
		Description: desc,
		SupportedInterfaces: []wire.AgentInterface{
			{URL: url, ProtocolBinding: wire.BindingJSONRPC, ProtocolVersion: wire.Version},
			{URL: url, ProtocolBinding: wire.BindingJSONRPC, ProtocolVersion: wire.LegacyVersion},
		},
		Provider:     &wire.AgentProvider{URL: base, Organization: "switchboard"},
		Version:      s.opts.Version,
		Capabilities: wire.AgentCapabilities{Streaming: &yes, PushNotifications: &push, ExtendedAgentCard: &yes},
		SecuritySchemes: map[string]wire.SecurityScheme{
			bearerScheme: {HTTPAuth: &wire.HTTPAuthSecurityScheme{Scheme: "Bearer",
				Description: "a switchboard gateway token (gateway.auth.token or gateway.auth.tokens[])"},
				LegacyType: "http", LegacyScheme: "Bearer"},
		},
		SecurityRequirements: []wire.SecurityRequirement{{Schemes: map[string]wire.StringList{bearerScheme: {List: []string{}}}}},
		DefaultInputModes:    []string{"text/plain", "application/json"},
		DefaultOutputModes:   []string{"text/plain"},
		Skills:               skills,

		LegacyURL:                url,
		LegacyProtocolVersion:    "0.3.0",
		LegacyPreferredTransport: wire.BindingJSONRPC,
		LegacySecurity:           []map[string][]string{{bearerScheme: {}}},
		LegacyExtendedCard:       &yes,
	}
}
