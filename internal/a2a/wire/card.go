package wire

// AgentCard describes an agent: who it is, where and how to reach it, what it
// can do and how to authenticate. The Legacy* fields are the 0.3 card fields
// (url, protocolVersion, preferredTransport, additionalInterfaces) that 0.3
// clients read to find the endpoint; a 1.0 card may carry them alongside.
type AgentCard struct {
	Name                 string                    `json:"name"`
	Description          string                    `json:"description"`
	SupportedInterfaces  []AgentInterface          `json:"supportedInterfaces"`
	Provider             *AgentProvider            `json:"provider,omitempty"`
	Version              string                    `json:"version"`
	DocumentationURL     string                    `json:"documentationUrl,omitempty"`
	Capabilities         AgentCapabilities         `json:"capabilities"`
	SecuritySchemes      map[string]SecurityScheme `json:"securitySchemes,omitempty"`
	SecurityRequirements []SecurityRequirement     `json:"securityRequirements,omitempty"`
	DefaultInputModes    []string                  `json:"defaultInputModes"`
	DefaultOutputModes   []string                  `json:"defaultOutputModes"`
	Skills               []AgentSkill              `json:"skills"`
	IconURL              string                    `json:"iconUrl,omitempty"`

	// 0.3 generation fields.
	LegacyURL                  string                 `json:"url,omitempty"`
	LegacyProtocolVersion      string                 `json:"protocolVersion,omitempty"`
	LegacyPreferredTransport   string                 `json:"preferredTransport,omitempty"`
	LegacyAdditionalInterfaces []LegacyAgentInterface `json:"additionalInterfaces,omitempty"`
	// LegacySecurity is the 0.3 "security" list (scheme name → scopes).
	LegacySecurity []map[string][]string `json:"security,omitempty"`
	// LegacyExtendedCard is 0.3's supportsAuthenticatedExtendedCard.
	LegacyExtendedCard *bool `json:"supportsAuthenticatedExtendedCard,omitempty"`
}

// AgentInterface is one (URL, binding, version) an agent answers on; the
// first entry of AgentCard.SupportedInterfaces is the preferred one.
type AgentInterface struct {
	URL             string `json:"url"`
	ProtocolBinding string `json:"protocolBinding"`
	Tenant          string `json:"tenant,omitempty"`
	ProtocolVersion string `json:"protocolVersion"`
}

// LegacyAgentInterface is a 0.3 additionalInterfaces entry.
type LegacyAgentInterface struct {
	URL       string `json:"url"`
	Transport string `json:"transport"`
}

// AgentProvider names the organization serving the agent.
type AgentProvider struct {
	URL          string `json:"url"`
	Organization string `json:"organization"`
}

// AgentCapabilities lists optional features.
type AgentCapabilities struct {
	Streaming         *bool            `json:"streaming,omitempty"`
	PushNotifications *bool            `json:"pushNotifications,omitempty"`
	Extensions        []AgentExtension `json:"extensions,omitempty"`
	ExtendedAgentCard *bool            `json:"extendedAgentCard,omitempty"`
}

// AgentExtension declares a protocol extension.
type AgentExtension struct {
	URI         string         `json:"uri"`
	Description string         `json:"description,omitempty"`
	Required    bool           `json:"required,omitempty"`
	Params      map[string]any `json:"params,omitempty"`
}

// AgentSkill is one thing the agent is good at.
type AgentSkill struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Tags        []string `json:"tags"`
	Examples    []string `json:"examples,omitempty"`
	InputModes  []string `json:"inputModes,omitempty"`
	OutputModes []string `json:"outputModes,omitempty"`
}

// SecurityScheme is a oneof: exactly one field is set. Only the schemes
// switchboard serves or reads are typed; the others are kept raw.
type SecurityScheme struct {
	APIKey   *APIKeySecurityScheme   `json:"apiKeySecurityScheme,omitempty"`
	HTTPAuth *HTTPAuthSecurityScheme `json:"httpAuthSecurityScheme,omitempty"`
	OAuth2   map[string]any          `json:"oauth2SecurityScheme,omitempty"`
	OIDC     map[string]any          `json:"openIdConnectSecurityScheme,omitempty"`
	MTLS     map[string]any          `json:"mtlsSecurityScheme,omitempty"`

	// LegacyType and LegacyScheme are the 0.3 shape of an HTTP scheme
	// ({"type": "http", "scheme": "Bearer"}), which 0.3 clients need to
	// read a card; a card serving both generations sets them beside
	// HTTPAuth.
	LegacyType   string `json:"type,omitempty"`
	LegacyScheme string `json:"scheme,omitempty"`
}

// APIKeySecurityScheme sends a key in a header, query parameter or cookie.
type APIKeySecurityScheme struct {
	Description string `json:"description,omitempty"`
	Location    string `json:"location"`
	Name        string `json:"name"`
}

// HTTPAuthSecurityScheme is HTTP authentication (e.g. Bearer).
type HTTPAuthSecurityScheme struct {
	Description  string `json:"description,omitempty"`
	Scheme       string `json:"scheme"`
	BearerFormat string `json:"bearerFormat,omitempty"`
}

// SecurityRequirement maps scheme names to required scopes.
type SecurityRequirement struct {
	Schemes map[string]StringList `json:"schemes"`
}

// StringList is a2a.proto's wrapper for a repeated string in a map value.
type StringList struct {
	List []string `json:"list"`
}
