package conformance

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/app"
	"github.com/switchboard-go/switchboard/internal/channels"
)

// Rows of the chat channels: channels.status, pairing list and approve,
// and a send to a chat on a channel. testConfig configures a Telegram
// bot whose Bot API nothing answers, so its account is configured and
// never connected.

const (
	noMCPChannels     = "no tool reads channel status or pairing"
	noHTTPPairing     = "pairing is OpenClaw's WS methods channels.pairing.*; HTTP has no route for it"
	pairingFromChat   = "a pairing request comes from a stranger's message on the channel; the row makes one in the state dir's pairing file"
	channelStatusInCL = "the in-process CLI has no channel running: it lists the configured ones as not running (the row's last cell)"
)

// channelStatusFields reads a StatusResult (channels.status, GET
// /api/channels/status, `channels status --json`).
func channelStatusFields(p []byte) map[string]string {
	var st channels.StatusResult
	if json.Unmarshal(p, &st) != nil {
		return map[string]string{"readable": "false"}
	}
	tg := st.ChannelAccounts["telegram"]
	ids := make([]string, 0, len(tg))
	configured := true
	for _, a := range tg {
		ids = append(ids, a.AccountID)
		configured = configured && a.Configured
	}
	return map[string]string{"channelOrder": strings.Join(st.ChannelOrder, ","), "telegram label": st.ChannelLabels["telegram"],
		"telegram accounts": strings.Join(ids, ","), "configured": fmt.Sprint(configured && len(tg) > 0),
		"connected": fmt.Sprint(st.Channels["telegram"].Connected), "default account": st.ChannelDefaultAccountID["telegram"]}
}

// pairingCell makes a pairing request in the state dir of surface s (as a
// stranger's message would), then lists, approves and lists again through
// the surface.
func pairingCell(s surface, via, sender string, list, approve func(t *testing.T, w *world, code string) outcome) cell {
	return custom(s, via, func(t *testing.T, w *world) outcome {
		p := channels.NewPairing(app.PairingPath(w.dirOf(s)))
		code, fresh, err := p.Request("telegram", channels.DefaultAccountID, sender, "Stranger "+sender)
		if err != nil || !fresh {
			t.Fatalf("pairing request for %s: fresh %v, %v", sender, fresh, err)
		}
		before := list(t, w, code)
		if !before.OK {
			return before
		}
		o := approve(t, w, code)
		if !o.OK {
			return o
		}
		after := list(t, w, code)
		o.Fields = map[string]string{"listed before": has([]byte(before.Payload), code), "approved id is the sender": fmt.Sprint(jsonPath([]byte(o.Payload), "senderId") == sender || jsonPath([]byte(o.Payload), "id") == sender),
			"listed after": has([]byte(after.Payload), code), "approved": fmt.Sprint(p.Approved("telegram", channels.DefaultAccountID, sender))}
		o.Payload = before.Payload + "\n" + o.Payload + "\n" + after.Payload
		return o
	})
}

// channelRows: channels.status, pairing, and send with a channel.
func channelRows(_ *world) []row {
	noMCP := []cell{na(sMCPStdio, noMCPChannels), na(sMCPHTTP, noMCPChannels)}
	statusWant := outcome{OK: true, Fields: map[string]string{"channelOrder": "telegram", "telegram label": "Telegram",
		"telegram accounts": "default", "configured": "true", "connected": "false", "default account": "default"}}
	wsList := func(t *testing.T, w *world, _ string) outcome {
		return w.wsOutcome(t, operatorToken, "channels.pairing.list", m{"channel": "telegram"})
	}
	cliList := func(s surface) func(t *testing.T, w *world, _ string) outcome {
		return func(t *testing.T, w *world, _ string) outcome {
			return w.cliOutcome(t, s, "pairing", "list", "telegram")
		}
	}
	// sendTo sends "to the group" to a Telegram group, with a file
	// (notes.txt, "three lines") when file is set.
	sendTo := func(s surface, via string, n int, file bool) cell {
		return custom(s, via, func(t *testing.T, w *world) outcome {
			key := fmt.Sprintf("agent:main:telegram:group:-%d", 7700+n)
			to := fmt.Sprintf("telegram:-%d", 7700+n)
			body := m{"sessionKey": key, "channel": "telegram", "to": to, "message": "to the group"}
			args := []string{"send", "--channel", "telegram", "--to", to, "--session", key}
			if file {
				body["attachments"] = []m{{"name": "notes.txt", "content": base64.StdEncoding.EncodeToString([]byte("three lines")), "encoding": "base64"}}
				path := filepath.Join(t.TempDir(), "notes.txt")
				if err := os.WriteFile(path, []byte("three lines"), 0o600); err != nil {
					t.Fatal(err)
				}
				args = append(args, "--file", path)
			}
			var o outcome
			switch s {
			case sHTTP:
				o = w.httpOutcome(t, operatorToken, http.MethodPost, "/api/send", body)
			case sWS:
				body["idempotencyKey"] = fmt.Sprintf("channel-send-ws-%d", n)
				o = w.wsOutcome(t, operatorToken, "send", body)
			default:
				o = w.cliOutcome(t, s, append(args, "to the group")...)
			}
			if !o.OK {
				return o
			}
			var list struct {
				Items []struct {
					Kind    string `json:"kind"`
					Channel string `json:"channel"`
					To      string `json:"to"`
					Payload struct {
						Files []struct {
							Name string `json:"name"`
							Data []byte `json:"data"`
						} `json:"files"`
					} `json:"payload"`
				} `json:"items"`
			}
			b := outboxOf(t, w, s, key)
			_ = json.Unmarshal(b, &list)
			queued, withFile := false, false
			for _, it := range list.Items {
				mine := it.Kind == "delivery" && it.Channel == "telegram" && it.To == to
				queued = queued || mine
				withFile = withFile || (mine && len(it.Payload.Files) == 1 && it.Payload.Files[0].Name == "notes.txt" && string(it.Payload.Files[0].Data) == "three lines")
			}
			o.Fields = map[string]string{"channel": jsonPath([]byte(o.Payload), "channel"), "to is the recipient": fmt.Sprint(jsonPath([]byte(o.Payload), "to") == to),
				"in the outbox for telegram": fmt.Sprint(queued)}
			if file {
				o.Fields["the file in the outbox item"] = fmt.Sprint(withFile)
			}
			o.Payload += "\noutbox: " + string(b)
			return o
		})
	}
	return []row{
		{finding: "27", name: "channels.status: the configured channels and their accounts, in OpenClaw's shape",
			want: statusWant, fields: channelStatusFields,
			cells: append([]cell{
				httpC(operatorToken, http.MethodGet, "/api/channels/status", nil),
				wsC(operatorToken, "channels.status", m{"probe": false}),
				cliC(sCLIGW, "channels", "status"),
				na(sCLI, channelStatusInCL),
			}, noMCP...)},
		{finding: "27", name: "channels status without a gateway: the configured channels, not running",
			want: outcome{OK: true, Fields: map[string]string{"channelOrder": "telegram", "telegram label": "Telegram",
				"telegram accounts": "default", "configured": "true", "connected": "false", "default account": "default"}},
			fields: channelStatusFields,
			cells:  []cell{cliC(sCLI, "channels", "status")}},
		{finding: "27", name: "pairing: a pending code is listed, approved once, and gone",
			want: outcome{OK: true, Fields: map[string]string{"listed before": "true", "listed after": "false", "approved": "true",
				"approved id is the sender": "true"}},
			cells: append([]cell{
				pairingCell(sWS, "channels.pairing.list/approve", "91001", wsList, func(t *testing.T, w *world, code string) outcome {
					return w.wsOutcome(t, operatorToken, "channels.pairing.approve", m{"channel": "telegram", "accountId": "default", "requestId": code})
				}),
				pairingCell(sCLIGW, "pairing list/approve", "91002", cliList(sCLIGW), func(t *testing.T, w *world, code string) outcome {
					return w.cliOutcome(t, sCLIGW, "pairing", "approve", "telegram", code)
				}),
				pairingCell(sCLI, "pairing list/approve", "91003", cliList(sCLI), func(t *testing.T, w *world, code string) outcome {
					return w.cliOutcome(t, sCLI, "pairing", "approve", "telegram", code)
				}),
				na(sHTTP, noHTTPPairing),
			}, noMCP...)},
		{finding: "27", name: "pairing: an unknown code is refused",
			want: outcome{Code: "not_found", Msg: "no pending pairing request for code ZZZZZZZZ on telegram"},
			cells: append([]cell{
				wsC(operatorToken, "channels.pairing.approve", m{"channel": "telegram", "accountId": "default", "requestId": "zzzzzzzz"}),
				cliC(sCLIGW, "pairing", "approve", "telegram", "zzzzzzzz"),
				cliC(sCLI, "pairing", "approve", "telegram", "zzzzzzzz"),
				na(sHTTP, noHTTPPairing),
			}, noMCP...)},
		{finding: "27", name: "pairing: a read token may not approve",
			want: outcome{Code: "forbidden", Msg: "missing scope"},
			cells: append([]cell{
				wsC(readToken, "channels.pairing.approve", m{"channel": "telegram", "code": "zzzzzzzz"}),
				na(sCLI, cliIsOperator), na(sCLIGW, cliIsOperator), na(sHTTP, noHTTPPairing),
			}, noMCP...)},
		{finding: "27", name: "send with a channel: queued in the outbox for that channel and recipient",
			want: outcome{OK: true, Status: "queued", Fields: map[string]string{"channel": "telegram", "to is the recipient": "true",
				"in the outbox for telegram": "true"}},
			cells: append([]cell{
				sendTo(sHTTP, "POST /api/send", 1, false),
				sendTo(sWS, "send", 2, false),
				sendTo(sCLIGW, "send --channel --to", 3, false),
				sendTo(sCLI, "send --channel --to", 4, false),
			}, noMCP...)},
		{finding: "27", name: "send with a file: queued with the file stored in its outbox item",
			want: outcome{OK: true, Status: "queued", Fields: map[string]string{"channel": "telegram", "to is the recipient": "true",
				"in the outbox for telegram": "true", "the file in the outbox item": "true"}},
			cells: append([]cell{
				sendTo(sHTTP, "POST /api/send {attachments}", 5, true),
				sendTo(sWS, "send {attachments}", 6, true),
				sendTo(sCLIGW, "send --channel --to --file", 7, true),
				sendTo(sCLI, "send --channel --to --file", 8, true),
			}, noMCP...)},
	}
}
