package bluebubbles

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/switchboard-go/switchboard/internal/channels"
)

// Config is what this package implements of OpenClaw's former
// `channels.bluebubbles` block (or of one of its accounts, merged over
// it). The config package checked the whole block against the schema of
// OpenClaw's BlueBubbles plugin; the keys not in effectKeys are accepted
// and have no effect.
type Config struct {
	Enabled        *bool                  `json:"enabled"`
	Name           string                 `json:"name"`
	ServerURL      string                 `json:"serverUrl"`
	Password       any                    `json:"password"`
	WebhookPath    string                 `json:"webhookPath"`
	WebhookHost    string                 `json:"webhookHost"`
	WebhookPort    *int                   `json:"webhookPort"`
	DMPolicy       string                 `json:"dmPolicy"`
	AllowFrom      []any                  `json:"allowFrom"`
	GroupPolicy    string                 `json:"groupPolicy"`
	GroupAllowFrom []any                  `json:"groupAllowFrom"`
	Groups         map[string]GroupConfig `json:"groups"`
	TextChunkLimit int                    `json:"textChunkLimit"`
}

// GroupConfig is `groups.<chatGuid>`.
type GroupConfig struct {
	RequireMention *bool `json:"requireMention"`
}

var effectKeys = map[string]bool{"enabled": true, "name": true, "serverUrl": true, "password": true,
	"webhookPath": true, "webhookHost": true, "webhookPort": true, "dmPolicy": true, "allowFrom": true,
	"groupPolicy": true, "groupAllowFrom": true, "groups": true, "textChunkLimit": true}

// Defaults (OpenClaw's webhook path and text limit).
const (
	DefaultTextLimit   = 4000
	defaultWebhookHost = "127.0.0.1"
	defaultWebhookPort = 8789
	defaultWebhookPath = "/bluebubbles-webhook"
)

// account is one resolved BlueBubbles server.
type account struct {
	id                             string
	cfg                            Config
	server, password               string
	webhookAddr, hookPath, problem string
}

// parse resolves the accounts of a `channels.bluebubbles` block.
func parse(raw map[string]any, getenv func(string) string) ([]account, error) {
	var out []account
	for _, b := range channels.AccountBlocks(raw) {
		var c Config
		path := "channels.bluebubbles"
		if raw["accounts"] != nil {
			path += ".accounts." + b.ID
		}
		if err := channels.Decode(path, b.Raw, &c); err != nil {
			return nil, err
		}
		a := account{id: b.ID, cfg: c, server: strings.TrimRight(strings.TrimSpace(c.ServerURL), "/")}
		host, port := c.WebhookHost, defaultWebhookPort
		if host == "" {
			host = defaultWebhookHost
		}
		if c.WebhookPort != nil {
			port = *c.WebhookPort
		}
		a.webhookAddr = net.JoinHostPort(host, strconv.Itoa(port))
		a.hookPath = c.WebhookPath
		if a.hookPath == "" {
			a.hookPath = defaultWebhookPath
		}
		var problems []string
		if a.server == "" {
			problems = append(problems, path+".serverUrl is not set")
		}
		pw, err := channels.ResolveSecret(c.Password, getenv)
		switch {
		case err != nil:
			problems = append(problems, fmt.Sprintf("%s.password: %v", path, err))
		case pw == "":
			problems = append(problems, path+".password is not set")
		}
		a.password, a.problem = pw, strings.Join(problems, "; ")
		out = append(out, a)
	}
	return out, nil
}

// access is the account's access rules. BlueBubbles marks no mentions;
// with a `name`, "@<name>" in a group message is one, and then
// requireMention gates.
func (c *Config) access() channels.Access {
	a := channels.Access{DMPolicy: c.DMPolicy, AllowFrom: ids(c.AllowFrom), GroupPolicy: c.GroupPolicy,
		GroupAllowFrom: ids(c.GroupAllowFrom), Mentions: strings.TrimSpace(c.Name) != "",
		Prefixes: []string{"bluebubbles:", "imessage:"}}
	if len(c.Groups) > 0 {
		a.Groups = map[string]channels.GroupAccess{}
		for id, g := range c.Groups {
			a.Groups[id] = channels.GroupAccess{RequireMention: g.RequireMention}
		}
	}
	return a
}

func ids(list []any) []string {
	out := make([]string, 0, len(list))
	for _, e := range list {
		out = append(out, channels.IDString(e))
	}
	return out
}
