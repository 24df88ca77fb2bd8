package channels

import (
	"fmt"
	"net"
	"strconv"
)

// AccessKeys are OpenClaw's access keys of a flat channel block (Signal,
// WhatsApp, BlueBubbles); a provider's Config embeds them.
type AccessKeys struct {
	DMPolicy       string               `json:"dmPolicy"`
	AllowFrom      []any                `json:"allowFrom"`
	GroupPolicy    string               `json:"groupPolicy"`
	GroupAllowFrom []any                `json:"groupAllowFrom"`
	Groups         map[string]GroupKeys `json:"groups"`
}

// GroupKeys are `groups.<chatId>` (systemPrompt only where the channel's
// schema has it).
type GroupKeys struct {
	RequireMention *bool  `json:"requireMention"`
	SystemPrompt   string `json:"systemPrompt"`
}

// Access is the keys' access rules; mentions says whether the provider
// marks mentions of the bot, prefixes are the channel's own prefixes an
// allowFrom entry may carry.
func (k AccessKeys) Access(mentions bool, prefixes ...string) Access {
	a := Access{DMPolicy: k.DMPolicy, AllowFrom: idStrings(k.AllowFrom), GroupPolicy: k.GroupPolicy,
		GroupAllowFrom: idStrings(k.GroupAllowFrom), Mentions: mentions, Prefixes: prefixes}
	if len(k.Groups) > 0 {
		a.Groups = map[string]GroupAccess{}
		for id, g := range k.Groups {
			a.Groups[id] = GroupAccess{RequireMention: g.RequireMention, SystemPrompt: g.SystemPrompt}
		}
	}
	return a
}

func idStrings(list []any) []string {
	out := make([]string, 0, len(list))
	for _, e := range list {
		out = append(out, IDString(e))
	}
	return out
}

// WebhookKeys are where a provider that pushes to switchboard reaches
// its webhook listener (OpenClaw's webhookHost, webhookPort,
// webhookPath); a provider's Config embeds them.
type WebhookKeys struct {
	WebhookPath string `json:"webhookPath"`
	WebhookHost string `json:"webhookHost"`
	WebhookPort *int   `json:"webhookPort"`
}

// Where is the listener's address and path, with the provider's default
// port and path (the host defaults to 127.0.0.1).
func (k WebhookKeys) Where(defaultPort int, defaultPath string) (addr, path string) {
	host, port := k.WebhookHost, defaultPort
	if host == "" {
		host = "127.0.0.1"
	}
	if k.WebhookPort != nil {
		port = *k.WebhookPort
	}
	path = k.WebhookPath
	if path == "" {
		path = defaultPath
	}
	return net.JoinHostPort(host, strconv.Itoa(port)), path
}

// AccountConfig is one account's decoded block and its key path.
type AccountConfig[C any] struct {
	ID, Path string
	Cfg      C
}

// DecodeAccounts decodes each account of a flat `channels.<channel>`
// block (AccountBlocks) into a C, refusing a negative textChunkLimit;
// errors name the account's key path.
func DecodeAccounts[C any](channel string, raw map[string]any) ([]AccountConfig[C], error) {
	var out []AccountConfig[C]
	for _, b := range AccountBlocks(raw) {
		path := "channels." + channel
		if raw["accounts"] != nil {
			path += ".accounts." + b.ID
		}
		var c C
		if err := Decode(path, b.Raw, &c); err != nil {
			return nil, err
		}
		var limit struct {
			TextChunkLimit int `json:"textChunkLimit"`
		}
		if err := Decode(path, b.Raw, &limit); err != nil {
			return nil, err
		}
		if limit.TextChunkLimit < 0 {
			return nil, fmt.Errorf("%s.textChunkLimit: must be positive", path)
		}
		out = append(out, AccountConfig[C]{ID: b.ID, Path: path, Cfg: c})
	}
	return out, nil
}
