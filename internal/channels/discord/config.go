package discord

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Config is what this package implements of OpenClaw's
// `channels.discord` block (the config package checked the whole block
// against OpenClaw's schema; the keys not listed here are accepted and
// have no effect, see NoEffectKeys).
type Config struct {
	Account
	// Accounts are further bots (`channels.discord.accounts.<id>`); each
	// inherits the top-level keys it does not set.
	Accounts map[string]json.RawMessage `json:"accounts"`
	// DefaultAccount names the account deliveries use when a session has
	// none.
	DefaultAccount string `json:"defaultAccount"`
}

// Account is one bot's settings.
type Account struct {
	Enabled *bool `json:"enabled"`
	// Token is the bot token: a string or a secret reference
	// {source: "env", provider, id}.
	Token json.RawMessage `json:"token"`
	// DMPolicy: "pairing" (default), "allowlist", "open", "disabled".
	DMPolicy  string   `json:"dmPolicy"`
	AllowFrom []string `json:"allowFrom"`
	// GroupPolicy: "allowlist" (default: only guilds listed in Guilds),
	// "open", "disabled".
	GroupPolicy string           `json:"groupPolicy"`
	Guilds      map[string]Guild `json:"guilds"`
	Intents     *Intents         `json:"intents"`
	// APIRoot and GatewayURL point the bot at another Discord-compatible
	// server (switchboard's addition; OpenClaw has no such keys).
	APIRoot    string `json:"apiRoot"`
	GatewayURL string `json:"gatewayUrl"`
	// MediaMaxMb caps one inbound attachment (OpenClaw's default 100,
	// channels.DefaultMediaMaxMb).
	MediaMaxMb float64 `json:"mediaMaxMb"`
}

// Guild is `guilds.<id>` ("*" applies to guilds without an entry).
type Guild struct {
	RequireMention *bool                   `json:"requireMention"`
	Users          []string                `json:"users"`
	Roles          []string                `json:"roles"`
	Channels       map[string]GuildChannel `json:"channels"`
}

// GuildChannel is `guilds.<id>.channels.<id>`.
type GuildChannel struct {
	RequireMention *bool    `json:"requireMention"`
	Enabled        *bool    `json:"enabled"`
	Users          []string `json:"users"`
	Roles          []string `json:"roles"`
}

// Intents is `intents`: the privileged intents to ask for.
type Intents struct {
	MessageContent *bool `json:"messageContent"`
	Presence       *bool `json:"presence"`
	GuildMembers   *bool `json:"guildMembers"`
	VoiceStates    *bool `json:"voiceStates"`
}

// implemented lists the keys of an account (and the top level) that have
// an effect; every other key of OpenClaw's schema is accepted and warned
// about.
var implemented = map[string]bool{"enabled": true, "token": true, "dmPolicy": true, "allowFrom": true,
	"groupPolicy": true, "guilds": true, "intents": true, "apiRoot": true, "gatewayUrl": true,
	"accounts": true, "defaultAccount": true, "mediaMaxMb": true}

var implementedGuild = map[string]bool{"requireMention": true, "users": true, "roles": true, "channels": true}

var implementedChannel = map[string]bool{"requireMention": true, "enabled": true, "users": true, "roles": true}

// ParseConfig decodes the `channels.discord` block.
func ParseConfig(block map[string]any) (Config, error) {
	var c Config
	if block == nil {
		return c, nil
	}
	b, err := json.Marshal(block)
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil {
		return Config{}, fmt.Errorf("channels.discord: %w", err)
	}
	return c, nil
}

// NoEffectKeys lists the keys of the block that are accepted but not
// implemented, as full paths (`channels.discord.streaming`), sorted.
func NoEffectKeys(block map[string]any) []string {
	var out []string
	var account func(path string, m map[string]any, top bool)
	account = func(path string, m map[string]any, top bool) {
		for k, v := range m {
			p := path + "." + k
			if !implemented[k] || (!top && (k == "accounts" || k == "defaultAccount")) {
				out = append(out, p)
				continue
			}
			switch k {
			case "accounts":
				accs, _ := v.(map[string]any)
				for id, a := range accs {
					if am, ok := a.(map[string]any); ok {
						account(p+"."+id, am, false)
					}
				}
			case "guilds":
				gs, _ := v.(map[string]any)
				for id, g := range gs {
					gm, _ := g.(map[string]any)
					for gk, gv := range gm {
						gp := p + "." + id + "." + gk
						if !implementedGuild[gk] {
							out = append(out, gp)
							continue
						}
						if gk != "channels" {
							continue
						}
						chs, _ := gv.(map[string]any)
						for cid, ch := range chs {
							cm, _ := ch.(map[string]any)
							for ck := range cm {
								if !implementedChannel[ck] {
									out = append(out, gp+"."+cid+"."+ck)
								}
							}
						}
					}
				}
			}
		}
	}
	account("channels.discord", block, true)
	sort.Strings(out)
	return out
}

// AccountConfig returns account id's settings: the account's own keys
// over the top-level ones. "default" (or "") is the top level itself.
func (c Config) AccountConfig(id string) (Account, error) {
	if id == "" || id == "default" {
		return c.Account, nil
	}
	raw, ok := c.Accounts[id]
	if !ok {
		return Account{}, fmt.Errorf("channels.discord.accounts: no account %q", id)
	}
	a := c.Account // inherit, then overlay
	a.Guilds, a.AllowFrom = c.Guilds, c.AllowFrom
	if err := json.Unmarshal(raw, &a); err != nil {
		return Account{}, fmt.Errorf("channels.discord.accounts.%s: %w", id, err)
	}
	return a, nil
}

// AccountIDs returns the configured account ids: "default" when the top
// level has a token or there are no accounts, then the accounts, sorted.
func (c Config) AccountIDs() []string {
	var out []string
	if len(c.Token) > 0 || len(c.Accounts) == 0 {
		out = append(out, "default")
	}
	ids := make([]string, 0, len(c.Accounts))
	for id := range c.Accounts {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return append(out, ids...)
}

// ErrNoToken reports an account without a token.
var ErrNoToken = errors.New("no token")

// ResolveToken reads an account's token: the string itself, or the
// environment variable a secret reference {source: "env", id} names; the
// default account falls back to $DISCORD_BOT_TOKEN.
func (a Account) ResolveToken(accountID string, getenv func(string) string) (string, error) {
	if len(a.Token) == 0 || string(a.Token) == "null" {
		if accountID == "default" || accountID == "" {
			if t := strings.TrimSpace(getenv("DISCORD_BOT_TOKEN")); t != "" {
				return t, nil
			}
		}
		return "", fmt.Errorf("%w: set channels.discord.token or $DISCORD_BOT_TOKEN", ErrNoToken)
	}
	var s string
	if json.Unmarshal(a.Token, &s) == nil {
		s = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "Bot "))
		if s == "" {
			return "", fmt.Errorf("%w: channels.discord.token is empty", ErrNoToken)
		}
		return s, nil
	}
	var ref struct {
		Source string `json:"source"`
		ID     string `json:"id"`
	}
	if err := json.Unmarshal(a.Token, &ref); err != nil {
		return "", fmt.Errorf("channels.discord.token: %w", err)
	}
	if ref.Source != "env" {
		return "", fmt.Errorf("channels.discord.token: secret source %q is not supported here (use \"env\")", ref.Source)
	}
	t := strings.TrimSpace(getenv(ref.ID))
	if t == "" {
		return "", fmt.Errorf("%w: $%s (channels.discord.token) is not set", ErrNoToken, ref.ID)
	}
	return t, nil
}
