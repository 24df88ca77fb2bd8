package bluebubbles

import (
	"fmt"
	"strings"

	"github.com/switchboard-go/switchboard/internal/channels"
)

// Config is what this package implements of OpenClaw's former
// `channels.bluebubbles` block (or of one of its accounts, merged over
// it). The config package checked the whole block against the schema of
// OpenClaw's BlueBubbles plugin; the keys not in effectKeys are accepted
// and have no effect.
type Config struct {
	Enabled   *bool  `json:"enabled"`
	Name      string `json:"name"`
	ServerURL string `json:"serverUrl"`
	Password  any    `json:"password"`
	channels.WebhookKeys
	channels.AccessKeys
	TextChunkLimit int `json:"textChunkLimit"`
	// MediaMaxMb caps one inbound file (0: channels.DefaultMediaMaxMb).
	MediaMaxMb float64 `json:"mediaMaxMb"`
}

var effectKeys = map[string]bool{"enabled": true, "name": true, "serverUrl": true, "password": true,
	"webhookPath": true, "webhookHost": true, "webhookPort": true, "dmPolicy": true, "allowFrom": true,
	"groupPolicy": true, "groupAllowFrom": true, "groups": true, "textChunkLimit": true, "mediaMaxMb": true}

// Defaults (OpenClaw's webhook path and text limit).
const (
	DefaultTextLimit   = 4000
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
	blocks, err := channels.DecodeAccounts[Config](Channel, raw)
	if err != nil {
		return nil, err
	}
	out := make([]account, 0, len(blocks))
	for _, b := range blocks {
		c, path := b.Cfg, b.Path
		a := account{id: b.ID, cfg: c, server: strings.TrimRight(strings.TrimSpace(c.ServerURL), "/")}
		a.webhookAddr, a.hookPath = c.Where(defaultWebhookPort, defaultWebhookPath)
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
	return c.Access(strings.TrimSpace(c.Name) != "", "bluebubbles:", "imessage:")
}
