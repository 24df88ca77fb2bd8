package whatsapp

import (
	"fmt"
	"strings"

	"github.com/switchboard-go/switchboard/internal/channels"
)

// Config is what this package implements of `channels.whatsapp` (or of
// one of its accounts, merged over it): OpenClaw's access keys plus the
// Cloud API's own. The config package checked the whole block against
// OpenClaw's schema (with the Cloud API keys added); the keys not in
// effectKeys are accepted and have no effect.
type Config struct {
	Enabled       *bool  `json:"enabled"`
	AccessToken   any    `json:"accessToken"`
	PhoneNumberID string `json:"phoneNumberId"`
	AppSecret     any    `json:"appSecret"`
	VerifyToken   any    `json:"verifyToken"`
	APIRoot       string `json:"apiRoot"`
	channels.WebhookKeys
	channels.AccessKeys
	TextChunkLimit   int   `json:"textChunkLimit"`
	SendReadReceipts *bool `json:"sendReadReceipts"`
	// MediaMaxMb caps one inbound file (0: channels.DefaultMediaMaxMb).
	MediaMaxMb float64 `json:"mediaMaxMb"`
}

var effectKeys = map[string]bool{"enabled": true, "accessToken": true, "phoneNumberId": true, "appSecret": true,
	"verifyToken": true, "apiRoot": true, "webhookPath": true, "webhookHost": true, "webhookPort": true,
	"dmPolicy": true, "allowFrom": true, "groupPolicy": true, "groupAllowFrom": true, "groups": true,
	"textChunkLimit": true, "sendReadReceipts": true, "mediaMaxMb": true}

// Defaults.
const (
	// DefaultAPIRoot is the Graph API with the version switchboard speaks.
	DefaultAPIRoot = "https://graph.facebook.com/v25.0"
	// DefaultTextLimit is the Cloud API's limit of a text message body.
	DefaultTextLimit   = 4096
	defaultWebhookPort = 8788
	defaultWebhookPath = "/whatsapp-webhook"
)

// account is one resolved Cloud API phone number.
type account struct {
	id                             string
	cfg                            Config
	token, appSecret, verifyToken  string
	apiRoot, webhookAddr, hookPath string
	// problem says why the account cannot run ("" when it can).
	problem string
}

// parse resolves the accounts of a `channels.whatsapp` block.
func parse(raw map[string]any, getenv func(string) string) ([]account, error) {
	blocks, err := channels.DecodeAccounts[Config](Channel, raw)
	if err != nil {
		return nil, err
	}
	out := make([]account, 0, len(blocks))
	for _, b := range blocks {
		c, path := b.Cfg, b.Path
		a := account{id: b.ID, cfg: c}
		a.apiRoot = strings.TrimRight(c.APIRoot, "/")
		if a.apiRoot == "" {
			a.apiRoot = DefaultAPIRoot
		}
		a.webhookAddr, a.hookPath = c.Where(defaultWebhookPort, defaultWebhookPath)
		var problems []string
		for _, s := range []struct {
			key string
			v   any
			dst *string
		}{{"accessToken", c.AccessToken, &a.token}, {"appSecret", c.AppSecret, &a.appSecret}, {"verifyToken", c.VerifyToken, &a.verifyToken}} {
			v, err := channels.ResolveSecret(s.v, getenv)
			switch {
			case err != nil:
				problems = append(problems, fmt.Sprintf("%s.%s: %v", path, s.key, err))
			case v == "":
				problems = append(problems, path+"."+s.key+" is not set")
			}
			*s.dst = v
		}
		if strings.TrimSpace(c.PhoneNumberID) == "" {
			problems = append(problems, path+".phoneNumberId is not set")
		}
		a.problem = strings.Join(problems, "; ")
		out = append(out, a)
	}
	return out, nil
}

// access is the account's access rules. WhatsApp marks no mentions of a
// Cloud API number, so requireMention does not gate.
func (c *Config) access() channels.Access { return c.Access(false, "whatsapp:") }
