package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/switchboard-go/switchboard/internal/app"
	"github.com/switchboard-go/switchboard/internal/channels"
	"github.com/switchboard-go/switchboard/internal/client"
	"github.com/switchboard-go/switchboard/internal/domain"
)

func channelsCommand() *command {
	return &command{
		name:    "channels",
		summary: "chat channels (Telegram, Discord): their state",
		subs: []*command{{
			name:    "status",
			summary: "show each channel account: running, connected, last error, counters",
			help: "Asks the running gateway of the state dir (channels receive only there). Without a\n" +
				"gateway it lists the configured channels as not running.",
			example: []string{"switchboard channels status", "switchboard channels status --channel telegram --json"},
			define: func(e *env, fs *flag.FlagSet) func([]string) error {
				only := fs.String("channel", "", "only `CHANNEL`")
				return func(pos []string) error {
					if err := e.wantArgs(pos, 0, 0); err != nil {
						return err
					}
					st, err := e.channelsStatus(*only)
					if err != nil {
						return err
					}
					if e.json {
						return printJSON(e.stdout, st)
					}
					if len(st.ChannelOrder) == 0 {
						_, err := fmt.Fprintln(e.stdout, "No channels configured.")
						return err
					}
					now := time.Now()
					t := newTable(e.stdout, "CHANNEL", "ACCOUNT", "MODE", "RUNNING", "CONNECTED", "BOT", "IN", "DELIVERED", "RETRIED", "FAILED", "LAST INBOUND", "LAST ERROR")
					for _, n := range st.ChannelOrder {
						for _, a := range st.ChannelAccounts[n] {
							t.row(n, a.AccountID, orDash(a.Mode), yesNo(a.Running), yesNo(a.Connected), orDash(a.BotUsername),
								fmt.Sprint(a.Received), fmt.Sprint(a.Delivered), fmt.Sprint(a.Retried), fmt.Sprint(a.Failed),
								ago(a.LastInboundAt, now), clip(orDash(a.LastError), 60))
						}
					}
					return t.flush()
				}
			},
		}},
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// channelsStatus asks the running gateway, else reports the configured
// channels as not running.
func (e *env) channelsStatus(only string) (channels.StatusResult, error) {
	dir, cfgPath, err := e.paths()
	if err != nil {
		return channels.StatusResult{}, err
	}
	cfg, err := app.LoadConfig(cfgPath, e.getenv)
	if err != nil {
		return channels.StatusResult{}, err
	}
	info, running, err := app.ReadGatewayInfo(dir)
	if err != nil {
		return channels.StatusResult{}, err
	}
	if running {
		u := strings.TrimRight(info.URL, "/") + "/api/channels/status?channel=" + url.QueryEscape(only)
		req, err := http.NewRequestWithContext(e.ctx, http.MethodGet, u, nil)
		if err != nil {
			return channels.StatusResult{}, err
		}
		if tok := gatewayToken(e.getenv, cfg); tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
		if err != nil {
			return channels.StatusResult{}, client.Unreachable(e.ctx, req.URL.Host, err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
		if resp.StatusCode != http.StatusOK {
			return channels.StatusResult{}, client.ResponseError(resp.StatusCode, body)
		}
		var st channels.StatusResult
		if err := json.Unmarshal(body, &st); err != nil {
			return channels.StatusResult{}, fmt.Errorf("gateway %s: %w", info.URL, err)
		}
		return st, nil
	}
	reg := channels.NewRegistry(nil, nil)
	for _, n := range cfg.Channels.Names() {
		if n == "telegram" || n == "discord" {
			_ = reg.Register(idleChannel(n))
		}
	}
	return reg.StatusResult(only, time.Now()), nil
}

// idleChannel stands for a configured channel when no gateway runs.
type idleChannel string

func (c idleChannel) Channel() string { return string(c) }
func (idleChannel) Start(ctx context.Context, _ channels.Sink) error {
	return errors.New("not started outside the gateway")
}
func (idleChannel) Stop(context.Context) error                    { return nil }
func (idleChannel) Send(context.Context, channels.Outbound) error { return errors.New("no gateway") }
func (idleChannel) Status() []channels.AccountStatus {
	return []channels.AccountStatus{{AccountID: channels.DefaultAccountID, Enabled: true, Configured: true,
		LastError: "no gateway runs on this state dir"}}
}

func pairingCommand() *command {
	return &command{
		name:    "pairing",
		summary: "approve senders who asked for access (dmPolicy \"pairing\")",
		subs: []*command{{
			name:    "list",
			summary: "list pending pairing requests",
			help:    "An unknown sender writing to a channel with dmPolicy \"pairing\" gets an 8-character code; the\nrequest lives an hour, at most 3 per account are pending.",
			example: []string{"switchboard pairing list", "switchboard pairing list telegram --json"},
			define: func(e *env, fs *flag.FlagSet) func([]string) error {
				return func(pos []string) error {
					if err := e.wantArgs(pos, 0, 1); err != nil {
						return err
					}
					p, err := e.pairing()
					if err != nil {
						return err
					}
					ch := ""
					if len(pos) == 1 {
						ch = pos[0]
					}
					reqs, err := p.List(ch)
					if err != nil {
						return err
					}
					if e.json {
						return printJSON(e.stdout, map[string]any{"requests": reqs})
					}
					if len(reqs) == 0 {
						_, err := fmt.Fprintln(e.stdout, "No pending pairing requests.")
						return err
					}
					now := time.Now()
					t := newTable(e.stdout, "CHANNEL", "ACCOUNT", "CODE", "SENDER", "NAME", "REQUESTED")
					for _, r := range reqs {
						t.row(r.Channel, r.AccountID, r.Code, r.SenderID, orDash(r.Name), ago(r.CreatedAt, now))
					}
					return t.flush()
				}
			},
		}, {
			name:    "approve",
			summary: "approve the sender of a pending code",
			example: []string{"switchboard pairing approve telegram K7PQ2MZX"},
			define: func(e *env, fs *flag.FlagSet) func([]string) error {
				return func(pos []string) error {
					if err := e.wantArgs(pos, 2, 2); err != nil {
						return err
					}
					p, err := e.pairing()
					if err != nil {
						return err
					}
					r, err := p.Approve(pos[0], pos[1])
					if errors.Is(err, channels.ErrNoPairingCode) {
						return domain.Errorf(domain.CodeNotFound, "no pending pairing request for code %s on %s", strings.ToUpper(pos[1]), pos[0])
					}
					if err != nil {
						return err
					}
					if e.json {
						return printJSON(e.stdout, map[string]any{"ok": true, "channel": r.Channel, "accountId": r.AccountID, "id": r.SenderID})
					}
					_, err = fmt.Fprintf(e.stdout, "Approved %s sender %s (account %s).\n", r.Channel, r.SenderID, r.AccountID)
					return err
				}
			},
		}},
	}
}

// pairing opens the state dir's pairing file (the gateway reads it on each
// message, so an approval takes effect at once).
func (e *env) pairing() (*channels.Pairing, error) {
	dir, _, err := e.paths()
	if err != nil {
		return nil, err
	}
	return channels.NewPairing(app.PairingPath(dir)), nil
}
