package config

import (
	_ "embed"
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"github.com/switchboard-go/switchboard/internal/sessionkey"
)

// ChannelsConfig is `channels.*`: the chat providers switchboard speaks
// (docs/channels.md) and the generic webhook deliverer.
type ChannelsConfig struct {
	// Webhook maps a channel name to a webhook that receives its
	// deliveries as JSON POSTs (`channels.webhook.<name>.url`).
	Webhook map[string]WebhookChannel `json:"webhook,omitempty"`
	// Telegram is OpenClaw's `channels.telegram` block, checked key for
	// key against OpenClaw's own schema (schema/telegram.json); the
	// telegram channel package reads it (TelegramConfig there).
	Telegram map[string]any `json:"telegram,omitempty"`
	// Discord is OpenClaw's `channels.discord` block (the discord channel
	// package reads it).
	Discord map[string]any `json:"discord,omitempty"`
	// Signal is OpenClaw's `channels.signal` block (signal-cli's HTTP
	// daemon), WhatsApp `channels.whatsapp` (spoken through the WhatsApp
	// Business Cloud API) and BlueBubbles OpenClaw's former
	// `channels.bluebubbles` (iMessage through a BlueBubbles server); their
	// channel packages read them.
	Signal      map[string]any `json:"signal,omitempty"`
	WhatsApp    map[string]any `json:"whatsapp,omitempty"`
	BlueBubbles map[string]any `json:"bluebubbles,omitempty"`
}

// providers are the provider blocks by channel name.
func (c ChannelsConfig) providers() map[string]map[string]any {
	return map[string]map[string]any{"telegram": c.Telegram, "discord": c.Discord, "signal": c.Signal,
		"whatsapp": c.WhatsApp, "bluebubbles": c.BlueBubbles}
}

// WebhookChannel is `channels.webhook.<name>`.
type WebhookChannel struct {
	// URL receives the channel's deliveries as JSON POSTs.
	URL string `json:"url"`
}

// Names returns every channel name the config defines (webhook names and
// the configured providers), sorted.
func (c ChannelsConfig) Names() []string {
	var out []string
	for n := range c.Webhook {
		out = append(out, n)
	}
	for name, block := range c.providers() {
		if block != nil {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// Has reports whether the config defines channel name.
func (c ChannelsConfig) Has(name string) bool { return slices.Contains(c.Names(), name) }

// Binding is one of OpenClaw's `bindings`: messages matching Match are
// answered by AgentID.
type Binding struct {
	// Type is "route" (default); "acp" bindings are accepted and ignored.
	Type    string          `json:"type,omitempty"`
	AgentID string          `json:"agentId"`
	Comment string          `json:"comment,omitempty"`
	Match   BindingMatch    `json:"match"`
	Session *BindingSession `json:"session,omitempty"`
	// ACP is an acp binding's settings (no effect here).
	ACP any `json:"acp,omitempty"`
}

// BindingMatch is `bindings[].match`.
type BindingMatch struct {
	Channel string `json:"channel"`
	// AccountID: empty matches the default account, "*" every account.
	AccountID string       `json:"accountId,omitempty"`
	Peer      *BindingPeer `json:"peer,omitempty"`
	GuildID   string       `json:"guildId,omitempty"`
	TeamID    string       `json:"teamId,omitempty"`
	Roles     []string     `json:"roles,omitempty"`
}

// BindingPeer is `bindings[].match.peer`.
type BindingPeer struct {
	Kind string `json:"kind"` // direct|group|channel
	ID   string `json:"id"`
}

// BindingSession is `bindings[].session`: scope overrides for the
// conversations the binding matches.
type BindingSession struct {
	DMScope    string `json:"dmScope,omitempty"`
	GroupScope string `json:"groupScope,omitempty"`
}

//go:embed schema/telegram.json
var telegramSchemaDoc []byte

var telegramSchema schemaCache

// legacyChannelProblems finds the retired `channels.<name>.webhookUrl`
// form of the webhook deliverer in a raw config and removes it (so it is
// reported once, with the key that replaces it).
func legacyChannelProblems(raw map[string]any) []Problem {
	chs, ok := raw["channels"].(map[string]any)
	if !ok {
		return nil
	}
	var out []Problem
	if _, ok := chs["imessage"]; ok {
		out = append(out, Problem{Path: "channels.imessage",
			Message: "OpenClaw's macOS imsg channel is not supported: reach iMessage through a BlueBubbles server (channels.bluebubbles, docs/channels.md)"})
		delete(chs, "imessage")
	}
	for _, name := range sortedKeys(chs) {
		switch name {
		case "webhook", "telegram", "discord", "signal", "whatsapp", "bluebubbles":
			continue
		}
		m, ok := chs[name].(map[string]any)
		if !ok {
			continue
		}
		if _, ok := m["webhookUrl"]; ok {
			out = append(out, Problem{Path: joinKey(joinKey("channels", name), "webhookUrl"),
				Message: "moved: write it as channels.webhook." + name + ".url"})
			delete(chs, name)
		}
	}
	return out
}

func (c *Config) checkChannels(v *checker) {
	for _, name := range sortedKeys(c.Channels.Webhook) {
		path := joinKey("channels.webhook", name)
		if !sessionkey.ValidAgentID(name) || name != strings.ToLower(name) {
			// Channel names appear as key segments (agent:<id>:<channel>:group:<x>).
			v.add(path, "channel name must match ^[a-z0-9][a-z0-9_-]{0,63}$")
			continue
		}
		if _, ok := c.Channels.providers()[name]; ok {
			v.add(path, "is a provider channel (configure channels.%s)", name)
			continue
		}
		u := c.Channels.Webhook[name].URL
		if u == "" {
			v.add(path+".url", "required")
			continue
		}
		checkURL(v, path+".url", u)
	}
	if c.Channels.Telegram != nil {
		checkSchema(v, "channels.telegram", &telegramSchema, telegramSchemaDoc, withoutLegacyTelegram(v, "channels.telegram", c.Channels.Telegram))
	}
	if c.Channels.Discord != nil {
		checkSchema(v, "channels.discord", &discordSchema, discordSchemaDoc, c.Channels.Discord)
	}
	if c.Channels.Signal != nil {
		checkSchema(v, "channels.signal", &signalSchema, signalSchemaDoc, c.Channels.Signal)
	}
	if c.Channels.WhatsApp != nil {
		checkSchema(v, "channels.whatsapp", &whatsappSchema, whatsappSchemaDoc, c.Channels.WhatsApp)
	}
	if c.Channels.BlueBubbles != nil {
		checkSchema(v, "channels.bluebubbles", &bluebubblesSchema, bluebubblesSchemaDoc, c.Channels.BlueBubbles)
	}
	for i, b := range c.Bindings {
		path := "bindings[" + itoa(i) + "]"
		if b.Type != "" && b.Type != "route" && b.Type != "acp" {
			v.add(path+".type", `want "route" or "acp"`)
		}
		if strings.TrimSpace(b.AgentID) == "" {
			v.add(path+".agentId", "required")
		} else if _, ok := c.Agent(b.AgentID); !ok {
			v.add(path+".agentId", "unknown agent %q", b.AgentID)
		}
		if strings.TrimSpace(b.Match.Channel) == "" {
			v.add(path+".match.channel", "required")
		}
		if p := b.Match.Peer; p != nil {
			switch p.Kind {
			case "direct", "group", "channel":
			default:
				v.add(path+".match.peer.kind", `want "direct", "group" or "channel"`)
			}
		}
		if s := b.Session; s != nil {
			checkScopes(v, path+".session", s.DMScope, s.GroupScope)
		}
	}
	checkScopes(v, "session", c.Session.DMScope, c.Session.GroupScope)
}

// checkScopes checks a dmScope and a groupScope.
func checkScopes(v *checker, path, dm, group string) {
	switch dm {
	case "", "main", "per-peer", "per-channel-peer", "per-account-channel-peer":
	default:
		v.add(path+".dmScope", `want "main", "per-peer", "per-channel-peer" or "per-account-channel-peer"`)
	}
	switch group {
	case "", "main", "per-group":
	default:
		v.add(path+".groupScope", `want "main" or "per-group"`)
	}
}

// checkSchema validates a provider block against OpenClaw's schema of it.
func checkSchema(v *checker, path string, cache *schemaCache, doc []byte, block map[string]any) {
	s, err := cache.get(doc)
	if err != nil {
		v.add(path, "internal: schema: %s", err)
		return
	}
	// The block went through the strict walk already; round-trip it so
	// numbers are float64 as the schema check expects.
	var generic any
	b, err := json.Marshal(block)
	if err == nil {
		err = json.Unmarshal(b, &generic)
	}
	if err != nil {
		v.add(path, "%s", err)
		return
	}
	for _, p := range s.check(path, generic) {
		v.add(p.Path, "%s", p.Message)
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}
