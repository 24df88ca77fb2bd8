package signal

import (
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
	Enabled     *bool      `json:"enabled"`
	Name        string     `json:"name"`
	Account     string     `json:"account"`
	AccountUUID string     `json:"accountUuid"`
	HTTPURL     string     `json:"httpUrl"`
	Transport   *Transport `json:"transport"`
	channels.AccessKeys
	TextChunkLimit int `json:"textChunkLimit"`
	// MediaMaxMb caps one inbound file (0: channels.DefaultMediaMaxMb).
	MediaMaxMb float64 `json:"mediaMaxMb"`
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

// effectKeys are the keys that take effect.
var effectKeys = map[string]bool{"enabled": true, "name": true, "account": true, "accountUuid": true,
	"httpUrl": true, "transport": true, "dmPolicy": true, "allowFrom": true, "groupPolicy": true,
	"groupAllowFrom": true, "groups": true, "textChunkLimit": true, "mediaMaxMb": true}

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

// access is the account's access rules: Signal marks mentions.
func (c *Config) access() channels.Access { return c.Access(true, "signal:", "uuid:") }

// account is one resolved account.
type account struct {
	id  string
	cfg Config
}

// parse resolves the accounts of a `channels.signal` block.
func parse(raw map[string]any) ([]account, error) {
	blocks, err := channels.DecodeAccounts[Config](Channel, raw)
	if err != nil {
		return nil, err
	}
	out := make([]account, 0, len(blocks))
	for _, b := range blocks {
		out = append(out, account{id: b.ID, cfg: b.Cfg})
	}
	return out, nil
}
