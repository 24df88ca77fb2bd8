package telegram

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

// Config is the typed view of `channels.telegram` (or of one of its
// `accounts`), OpenClaw's keys. The config package checked the block
// against OpenClaw's schema; this view reads the keys switchboard
// implements (effectKeys).
type Config struct {
	Enabled        *bool             `json:"enabled"`
	Name           string            `json:"name"`
	BotToken       any               `json:"botToken"`
	TokenFile      string            `json:"tokenFile"`
	APIRoot        string            `json:"apiRoot"`
	WebhookURL     string            `json:"webhookUrl"`
	WebhookSecret  any               `json:"webhookSecret"`
	WebhookPath    string            `json:"webhookPath"`
	WebhookHost    string            `json:"webhookHost"`
	WebhookPort    *int              `json:"webhookPort"`
	DMPolicy       string            `json:"dmPolicy"`
	AllowFrom      []any             `json:"allowFrom"`
	GroupPolicy    string            `json:"groupPolicy"`
	GroupAllowFrom []any             `json:"groupAllowFrom"`
	Groups         map[string]*Group `json:"groups"`
	Streaming      *Streaming        `json:"streaming"`
	StreamMode     string            `json:"streamMode"`
	TextChunkLimit int               `json:"textChunkLimit"`
	LinkPreview    *bool             `json:"linkPreview"`
	// MediaMaxMb caps one inbound photo or document (OpenClaw's default
	// 100, channels.DefaultMediaMaxMb).
	MediaMaxMb     float64            `json:"mediaMaxMb"`
	Accounts       map[string]*Config `json:"accounts"`
	DefaultAccount string             `json:"defaultAccount"`
	Extra          map[string]any     `json:"-"`
}

// Group is `groups.<chatId>` (or "*").
type Group struct {
	Enabled        *bool             `json:"enabled"`
	RequireMention *bool             `json:"requireMention"`
	AllowFrom      []any             `json:"allowFrom"`
	GroupPolicy    string            `json:"groupPolicy"`
	SystemPrompt   string            `json:"systemPrompt"`
	Topics         map[string]*Topic `json:"topics"`
}

// Topic is `groups.<chatId>.topics.<threadId>`.
type Topic struct {
	Enabled        *bool  `json:"enabled"`
	RequireMention *bool  `json:"requireMention"`
	AllowFrom      []any  `json:"allowFrom"`
	GroupPolicy    string `json:"groupPolicy"`
	SystemPrompt   string `json:"systemPrompt"`
	AgentID        string `json:"agentId"`
}

// Streaming is `streaming`.
type Streaming struct {
	Mode string `json:"mode"`
}

// effectKeys are the top-level keys switchboard implements; every other
// key of OpenClaw's schema is accepted with a warning.
var effectKeys = map[string]bool{
	"enabled": true, "name": true, "botToken": true, "tokenFile": true, "apiRoot": true, "webhookUrl": true,
	"webhookSecret": true, "webhookPath": true, "webhookHost": true, "webhookPort": true, "dmPolicy": true,
	"allowFrom": true, "groupPolicy": true, "groupAllowFrom": true, "groups": true, "streaming": true,
	"streamMode": true, "textChunkLimit": true, "linkPreview": true, "accounts": true, "defaultAccount": true,
	"mediaMaxMb": true,
}

// groupEffectKeys are the keys of groups.<id> and topics.<id> that take
// effect.
var groupEffectKeys = map[string]bool{"enabled": true, "requireMention": true, "allowFrom": true,
	"groupPolicy": true, "systemPrompt": true, "topics": true, "agentId": true}

// parseConfig reads a raw `channels.telegram` block.
func parseConfig(raw map[string]any) (*Config, error) {
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	var c Config
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("channels.telegram: %w", err)
	}
	return &c, nil
}

// NoEffectKeys lists the keys of a raw block that are accepted but do
// nothing yet, as key paths under prefix, sorted.
func NoEffectKeys(prefix string, raw map[string]any) []string {
	var out []string
	for k, v := range raw {
		p := prefix + "." + k
		switch {
		case !effectKeys[k]:
			out = append(out, p)
		case k == "accounts":
			if m, ok := v.(map[string]any); ok {
				for id, a := range m {
					if am, ok := a.(map[string]any); ok {
						out = append(out, NoEffectKeys(p+"."+id, am)...)
					}
				}
			}
		case k == "groups":
			if m, ok := v.(map[string]any); ok {
				for id, g := range m {
					gm, _ := g.(map[string]any)
					for gk, gv := range gm {
						if !groupEffectKeys[gk] || gk == "agentId" {
							out = append(out, p+"."+id+"."+gk)
						}
						if gk == "topics" {
							tm, _ := gv.(map[string]any)
							for tid, t := range tm {
								tt, _ := t.(map[string]any)
								for tk := range tt {
									if !groupEffectKeys[tk] || tk == "topics" {
										out = append(out, p+"."+id+".topics."+tid+"."+tk)
									}
								}
							}
						}
					}
				}
			}
		case k == "streaming":
			if m, ok := v.(map[string]any); ok {
				for sk := range m {
					if sk != "mode" {
						out = append(out, p+"."+sk)
					}
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// account is one resolved bot account.
type account struct {
	id    string
	cfg   Config // the root merged with the account's own keys
	token string
	// tokenErr says why no token resolved.
	tokenErr string
}

// accounts resolves the accounts of a block: each `accounts.<id>` over
// the root's keys, or the root alone as "default".
func accounts(root *Config, getenv func(string) string) []account {
	if len(root.Accounts) == 0 {
		a := account{id: "default", cfg: *root}
		a.token, a.tokenErr = resolveToken(root, getenv, true)
		return []account{a}
	}
	ids := make([]string, 0, len(root.Accounts))
	for id := range root.Accounts {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var out []account
	for _, id := range ids {
		own := root.Accounts[id]
		if own == nil {
			continue
		}
		merged := merge(*root, *own)
		a := account{id: strings.ToLower(id), cfg: merged}
		a.token, a.tokenErr = resolveToken(&merged, getenv, strings.EqualFold(id, "default"))
		out = append(out, a)
	}
	return out
}

// merge lays an account's set keys over the root's.
func merge(root, own Config) Config {
	out := root
	out.Accounts = nil
	if own.Enabled != nil {
		out.Enabled = own.Enabled
	}
	for _, p := range []struct {
		dst *string
		src string
	}{{&out.Name, own.Name}, {&out.TokenFile, own.TokenFile}, {&out.APIRoot, own.APIRoot},
		{&out.WebhookURL, own.WebhookURL}, {&out.WebhookPath, own.WebhookPath}, {&out.WebhookHost, own.WebhookHost},
		{&out.DMPolicy, own.DMPolicy}, {&out.GroupPolicy, own.GroupPolicy}, {&out.StreamMode, own.StreamMode}} {
		if p.src != "" {
			*p.dst = p.src
		}
	}
	if own.BotToken != nil {
		out.BotToken = own.BotToken
	} else if own.TokenFile != "" {
		out.BotToken = nil
	}
	if own.WebhookSecret != nil {
		out.WebhookSecret = own.WebhookSecret
	}
	if own.WebhookPort != nil {
		out.WebhookPort = own.WebhookPort
	}
	if own.AllowFrom != nil {
		out.AllowFrom = own.AllowFrom
	}
	if own.GroupAllowFrom != nil {
		out.GroupAllowFrom = own.GroupAllowFrom
	}
	if own.Groups != nil {
		out.Groups = own.Groups
	}
	if own.Streaming != nil {
		out.Streaming = own.Streaming
	}
	if own.TextChunkLimit > 0 {
		out.TextChunkLimit = own.TextChunkLimit
	}
	if own.LinkPreview != nil {
		out.LinkPreview = own.LinkPreview
	}
	if own.MediaMaxMb > 0 {
		out.MediaMaxMb = own.MediaMaxMb
	}
	return out
}

// resolveToken finds an account's bot token: botToken (a string or a
// secret reference), else tokenFile, else TELEGRAM_BOT_TOKEN for the
// default account.
func resolveToken(c *Config, getenv func(string) string, isDefault bool) (string, string) {
	if c.BotToken != nil {
		s, err := resolveSecret(c.BotToken, getenv)
		if err != nil {
			return "", "botToken: " + err.Error()
		}
		if s != "" {
			return s, ""
		}
	}
	if c.TokenFile != "" {
		b, err := os.ReadFile(c.TokenFile)
		if err != nil {
			return "", "tokenFile: " + err.Error()
		}
		return strings.TrimSpace(string(b)), ""
	}
	if isDefault {
		if t := strings.TrimSpace(getenv("TELEGRAM_BOT_TOKEN")); t != "" {
			return t, ""
		}
	}
	return "", "no bot token (botToken, tokenFile or TELEGRAM_BOT_TOKEN)"
}

// resolveSecret reads OpenClaw's secret input: a string, or a reference
// {source: "env"|"file", provider, id}.
func resolveSecret(v any, getenv func(string) string) (string, error) {
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x), nil
	case map[string]any:
		src, _ := x["source"].(string)
		id, _ := x["id"].(string)
		switch src {
		case "env":
			s := strings.TrimSpace(getenv(id))
			if s == "" {
				return "", fmt.Errorf("environment variable %s is not set", id)
			}
			return s, nil
		case "file":
			b, err := os.ReadFile(id)
			if err != nil {
				return "", err
			}
			return strings.TrimSpace(string(b)), nil
		}
		return "", fmt.Errorf("secret source %q is not supported here (use env or file)", src)
	}
	return "", fmt.Errorf("want a string or a secret reference")
}

// idString renders an allowFrom entry (a number or a string).
func idString(v any) string {
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x)
	case float64:
		return strconv.FormatInt(int64(x), 10)
	case json.Number:
		return x.String()
	}
	return fmt.Sprint(v)
}
