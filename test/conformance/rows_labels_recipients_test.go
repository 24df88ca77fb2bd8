package conformance

import (
	"fmt"
	"net/http"
	"testing"
)

// Rows of sessions.patch's label, which keeps OpenClaw's three states, and a chat delivery needs a recipient.

// patchLabelRows: null clears the label, an absent label leaves it, and ""
// or blanks are `invalid label: empty` (OpenClaw's parseSessionLabel trims)
// on the wire.
func patchLabelRows(_ *world) []row {
	noMCP := []cell{na(sMCPStdio, noMCPNative), na(sMCPHTTP, noMCPNative)}
	empty := outcome{Code: "invalid", Msg: "invalid label: empty"}
	// The CLI refuses an empty --label itself (exit 2,
	// naming the flag): patchEmptyFlagRows.
	cliEmptyFlag := "the CLI refuses an empty --label itself, naming the flag (exit 2): patchEmptyFlagRows"
	key := func(s surface, what string) string { return "agent:main:label-" + what + "-" + string(s) }
	// patch sets label (nil: null; absent when !given) and sendPolicy, and
	// answers the label the session has afterwards.
	type patchFn func(t *testing.T, w *world, key string, label any, given bool) (outcome, string)
	wire := func(s surface) patchFn {
		return func(t *testing.T, w *world, k string, label any, given bool) (outcome, string) {
			body := m{"sendPolicy": "allow"}
			if given {
				body["label"] = label
			}
			if s == sWS {
				body["key"] = k
				o := w.wsOutcome(t, operatorToken, "sessions.patch", body)
				return o, jsonPath([]byte(o.Payload), "entry.label")
			}
			o := w.httpOutcome(t, operatorToken, http.MethodPost, "/api/sessions/"+esc(k)+"/patch", body)
			return o, jsonPath([]byte(o.Payload), "label")
		}
	}
	cli := func(s surface) patchFn {
		return func(t *testing.T, w *world, k string, label any, given bool) (outcome, string) {
			args := []string{"sessions", "patch", k, "--send-policy", "allow"}
			switch l := label.(type) {
			case string:
				args = append(args, "--label", l)
			case nil:
				if given {
					args = append(args, "--clear-label")
				}
			}
			o := w.cliOutcome(t, s, args...)
			return o, jsonPath([]byte(o.Payload), "label")
		}
	}
	states := func(s surface, via string, patch patchFn) cell {
		return custom(s, via, func(t *testing.T, w *world) outcome {
			k := key(s, "states")
			set := "states " + string(s) // labels are unique per agent
			if o, _ := patch(t, w, k, set, true); !o.OK {
				return o
			}
			o, absent := patch(t, w, k, nil, false)
			if !o.OK {
				return o
			}
			o, null := patch(t, w, k, nil, true)
			if !o.OK {
				return o
			}
			return outcome{OK: true, Payload: o.Payload, Fields: map[string]string{
				"absent keeps it": fmt.Sprint(absent == set), "null clears it": fmt.Sprint(null == "")}}
		})
	}
	return []row{
		{finding: "labels", name: "sessions patch: an absent label leaves it, null clears it",
			want: outcome{OK: true, Fields: map[string]string{"absent keeps it": "true", "null clears it": "true"}},
			cells: append([]cell{
				states(sWS, "sessions.patch {label: null}", wire(sWS)),
				states(sHTTP, "POST /api/sessions/{key}/patch {label: null}", wire(sHTTP)),
				states(sCLI, "sessions patch --clear-label", cli(sCLI)),
				states(sCLIGW, "sessions patch --clear-label", cli(sCLIGW)),
			}, noMCP...)},
		{finding: "labels", name: "sessions patch refuses an empty label",
			want: empty,
			cells: append([]cell{
				openclawWords(wsC(operatorToken, "sessions.patch", m{"key": key(sWS, "empty"), "label": ""}), anyOfRefusal("label", "must not have fewer than 1 characters")),
				httpC(operatorToken, http.MethodPost, "/api/sessions/"+esc(key(sHTTP, "empty"))+"/patch", m{"label": ""}),
				na(sCLI, cliEmptyFlag), na(sCLIGW, cliEmptyFlag),
			}, noMCP...)},
		{finding: "labels", name: "sessions patch refuses a blank label",
			want: empty,
			cells: append([]cell{
				wsC(operatorToken, "sessions.patch", m{"key": key(sWS, "blank"), "label": " \t "}),
				httpC(operatorToken, http.MethodPost, "/api/sessions/"+esc(key(sHTTP, "blank"))+"/patch", m{"label": "   "}),
				na(sCLI, cliEmptyFlag), na(sCLIGW, cliEmptyFlag),
			}, noMCP...)},
	}
}

// deliverRecipientRows: a chat with deliver to an external channel needs a
// recipient — the request's to/replyTo, else the session's last one on that
// channel; with none it is refused before anything is written (worded like
// `delivery channel is required`), unless best effort, which runs the turn
// without a delivery.
func deliverRecipientRows(_ *world) []row {
	noMCP := []cell{na(sMCPStdio, noMCPChat), na(sMCPHTTP, noMCPChat)}
	key := func(s surface, what string) string { return "agent:main:rcpt-" + what + "-" + string(s) }
	// wsRun starts an `agent` or `chat.send` call and waits for its run.
	wsRun := func(t *testing.T, w *world, method string, p m) (outcome, string) {
		a := w.wsOutcome(t, operatorToken, method, p)
		runID := jsonPath([]byte(a.Payload), "runId")
		if !a.OK {
			return a, ""
		}
		return w.wsOutcome(t, operatorToken, "agent.wait", m{"runId": runID, "timeoutMs": 30000}), runID
	}
	// delivered runs a chat on a fresh key (seeded first when seed is set:
	// an earlier telegram message from 42) and reports its delivery.
	delivered := func(s surface, via, what string, seed bool, chat func(t *testing.T, w *world, k string) (outcome, string)) cell {
		return custom(s, via, func(t *testing.T, w *world) outcome {
			k := key(s, what)
			if seed {
				if s == sCLI || s == sCLIGW {
					if r := w.cli(t, w.dirOf(s), "chat", k, "earlier", "--channel", "telegram", "--to", "42", "--json"); !r.ok {
						t.Fatalf("seed %s: exit %d: %s", k, r.exit, r.msg)
					}
				} else if st, b := w.httpDo(t, operatorToken, http.MethodPost, "/api/sessions/"+esc(k)+"/chat?wait=30s",
					m{"message": "earlier", "channel": "telegram", "to": "42"}); st != http.StatusOK {
					t.Fatalf("seed %s: %d %s", k, st, b)
				}
			}
			o, runID := chat(t, w, k)
			if !o.OK {
				return o
			}
			o.Status = ""
			o.Fields = deliveredReply(outboxOf(t, w, s, k), runID)
			delete(o.Fields, "text")
			return o
		})
	}
	agent := func(what string, extra m) func(t *testing.T, w *world, k string) (outcome, string) {
		return func(t *testing.T, w *world, k string) (outcome, string) {
			p := m{"sessionKey": k, "message": "ship it", "deliver": true, "idempotencyKey": "rcpt-" + what}
			for f, v := range extra {
				p[f] = v
			}
			return wsRun(t, w, "agent", p)
		}
	}
	httpChat := func(body m) func(t *testing.T, w *world, k string) (outcome, string) {
		return func(t *testing.T, w *world, k string) (outcome, string) {
			o := w.httpOutcome(t, operatorToken, http.MethodPost, "/api/sessions/"+esc(k)+"/chat?wait=30s", body)
			return o, jsonPath([]byte(o.Payload), "run.runId")
		}
	}
	cliChat := func(s surface, flags ...string) func(t *testing.T, w *world, k string) (outcome, string) {
		return func(t *testing.T, w *world, k string) (outcome, string) {
			o := w.cliOutcome(t, s, append([]string{"chat", k, "ship it", "--channel", "telegram", "--deliver"}, flags...)...)
			return o, jsonPath([]byte(o.Payload), "runId")
		}
	}
	telegram := m{"message": "ship it", "channel": "telegram", "deliver": true}
	best := m{"message": "ship it", "channel": "telegram", "deliver": true, "bestEffortDeliver": true}
	return []row{
		{finding: "deliver", name: "chat with deliver to a channel and no recipient is refused, naming to",
			want: outcome{Code: "invalid", Msg: "delivery recipient is required: pass to or replyTo, or use a session with a previous recipient on telegram"},
			cells: append([]cell{
				wsC(operatorToken, "agent", m{"sessionKey": key(sWS, "none"), "message": "nowhere", "channel": "telegram", "deliver": true}),
				httpC(operatorToken, http.MethodPost, "/api/sessions/"+esc(key(sHTTP, "none"))+"/chat", telegram),
				cliC(sCLI, "chat", key(sCLI, "none"), "nowhere", "--channel", "telegram", "--deliver"),
				cliC(sCLIGW, "chat", key(sCLIGW, "none"), "nowhere", "--channel", "telegram", "--deliver"),
			}, noMCP...)},
		{finding: "deliver", name: "chat with best-effort deliver and no recipient runs without a delivery",
			want: outcome{OK: true, Fields: map[string]string{"reply delivered": "false"}},
			cells: append([]cell{
				delivered(sWS, "agent {channel, deliver, bestEffortDeliver}", "best", false, agent("best-ws", m{"channel": "telegram", "bestEffortDeliver": true})),
				delivered(sWS, "chat.send {originatingChannel, deliver}", "best-chat-send", false, func(t *testing.T, w *world, k string) (outcome, string) {
					return wsRun(t, w, "chat.send", m{"sessionKey": k, "message": "ship it", "originatingChannel": "telegram",
						"deliver": true, "idempotencyKey": "rcpt-best-chat-send"})
				}),
				delivered(sHTTP, "POST /api/sessions/{key}/chat {channel, deliver, bestEffortDeliver}", "best", false, httpChat(best)),
				delivered(sCLI, "chat --channel telegram --deliver --best-effort-deliver", "best", false, cliChat(sCLI, "--best-effort-deliver")),
				delivered(sCLIGW, "chat --channel telegram --deliver --best-effort-deliver", "best", false, cliChat(sCLIGW, "--best-effort-deliver")),
			}, noMCP...)},
		{finding: "deliver", name: "chat with deliver and no to goes to the session's last recipient on the channel",
			want: outcome{OK: true, Fields: map[string]string{"reply delivered": "true", "channel": "telegram", "to": "42"}},
			cells: append([]cell{
				delivered(sWS, "agent {channel, deliver}", "seeded", true, agent("seeded-ws", m{"channel": "telegram"})),
				delivered(sWS, "agent {channel: last, deliver}", "seeded-last", true, agent("seeded-last-ws", m{"channel": "last"})),
				delivered(sHTTP, "POST /api/sessions/{key}/chat {channel, deliver}", "seeded", true, httpChat(telegram)),
				delivered(sCLI, "chat --channel telegram --deliver", "seeded", true, cliChat(sCLI)),
				delivered(sCLIGW, "chat --channel telegram --deliver", "seeded", true, cliChat(sCLIGW)),
			}, noMCP...)},
	}
}
