package signal

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/switchboard-go/switchboard/internal/channels"
)

// Config is what this package implements of OpenClaw's `channels.signal`
// block (or of one of its accounts, merged over it). The config package
// checked the whole block against OpenClaw's schema; the keys not in
// effectKeys are accepted and have no effect.
type Config struct {
	Enabled        *bool                  `json:"enabled"`
	Name           string                 `json:"name"`
	Account        string                 `json:"account"`
	AccountUUID    string                 `json:"accountUuid"`
	HTTPURL        string                 `json:"httpUrl"`
	Transport      *Transport             `json:"transport"`
	DMPolicy       string                 `json:"dmPolicy"`
	AllowFrom      []any                  `json:"allowFrom"`
	GroupPolicy    string                 `json:"groupPolicy"`
	GroupAllowFrom []any                  `json:"groupAllowFrom"`
	Groups         map[string]GroupConfig `json:"groups"`
	TextChunkLimit int                    `json:"textChunkLimit"`
}

// Transport is `transport`: how OpenClaw 2026.9.6 reaches signal-cli.
// switchboard only talks to a daemon already running, at URL (or
// httpHost:httpPort of a managed one).
type Transport struct {
	Kind     string `json:"kind"`
	URL      string `json:"url"`
	HTTPHost string `json:"httpHost"`
	HTTPPort int    `json:"httpPort"`
}

// GroupConfig is `groups.<groupId>`.
type GroupConfig struct {
	RequireMention *bool `json:"requireMention"`
}

// effectKeys are the keys that take effect.
var effectKeys = map[string]bool{"enabled": true, "name": true, "account": true, "accountUuid": true,
	"httpUrl": true, "transport": true, "dmPolicy": true, "allowFrom": true, "groupPolicy": true,
	"groupAllowFrom": true, "groups": true, "textChunkLimit": true}

// DefaultTextLimit is the piece size of a long reply (OpenClaw's default
// textChunkLimit).
const DefaultTextLimit = 4000

// defaultDaemonPort is signal-cli's HTTP daemon port when none is named.
const defaultDaemonPort = 8080

// baseURL is the daemon's URL: httpUrl, else transport.url, else
// http://<transport.httpHost>:<transport.httpPort> (127.0.0.1:8080).
func (c *Config) baseURL() string {
	if u := strings.TrimSpace(c.HTTPURL); u != "" {
		return strings.TrimRight(u, "/")
	}
	host, port := "127.0.0.1", defaultDaemonPort
	if t := c.Transport; t != nil {
		if u := strings.TrimSpace(t.URL); u != "" {
			return strings.TrimRight(u, "/")
		}
		if t.HTTPHost != "" {
			host = t.HTTPHost
		}
		if t.HTTPPort > 0 {
			port = t.HTTPPort
		}
	}
	return "http://" + net.JoinHostPort(host, strconv.Itoa(port))
}

// access is the account's access rules.
func (c *Config) access() channels.Access {
	a := channels.Access{DMPolicy: c.DMPolicy, AllowFrom: ids(c.AllowFrom), GroupPolicy: c.GroupPolicy,
		GroupAllowFrom: ids(c.GroupAllowFrom), Mentions: true, Prefixes: []string{"signal:", "uuid:"}}
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

// account is one resolved account.
type account struct {
	id  string
	cfg Config
}

// parse resolves the accounts of a `channels.signal` block.
func parse(raw map[string]any) ([]account, error) {
	var out []account
	for _, b := range channels.AccountBlocks(raw) {
		var c Config
		path := "channels.signal"
		if b.ID != channels.DefaultAccountID || raw["accounts"] != nil {
			path += ".accounts." + b.ID
		}
		if err := channels.Decode(path, b.Raw, &c); err != nil {
			return nil, err
		}
		if c.TextChunkLimit < 0 {
			return nil, fmt.Errorf("%s.textChunkLimit: must be positive", path)
		}
		out = append(out, account{id: b.ID, cfg: c})
	}
	return out, nil
}
