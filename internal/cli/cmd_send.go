package cli

import (
	"flag"
	"fmt"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
)

func sendCommand() *command {
	return &command{
		name:    "send",
		args:    "KEY MESSAGE | --channel CHANNEL --to RECIPIENT [--file PATH]... [MESSAGE]",
		summary: "send an inter-session message (sessions_send), or a message straight to a chat, and print the result",
		help: "Like the sessions_send tool: the message is written into KEY's session with inter-session\n" +
			"provenance, its agent answers, and the announce step runs afterwards. Sent from the CLI (outside\n" +
			"any agent run) there are no reply-back turns. --timeout 0 returns at once with status accepted.\n" +
			"Exit status 1 when the result's status is error, forbidden or timeout.\n\n" +
			"With --to, MESSAGE goes to RECIPIENT on --channel (the gateway's `send`, POST /api/send): queued\n" +
			"in the outbox and delivered once, mirrored into --session's transcript (default main); the\n" +
			"session's send policy applies. Operator only. --file (repeatable) sends a photo or document with\n" +
			"it (Telegram, Discord and Signal; MESSAGE is then optional, the caption), within\n" +
			"tools.sessions_spawn.attachments' maxFiles, maxFileBytes and maxTotalBytes.",
		example: []string{
			"switchboard send agent:main:research \"find three papers on lane scheduling\"",
			"switchboard send agent:main:research \"status?\" --timeout 60 --json",
			"switchboard send main \"hi\" --as agent:main:research   # as that session (visibility applies)",
			"switchboard send agent:main:research \"also check X\" --mode steer   # into its running run",
			"switchboard send agent:main:research \"FYI: deploy done\" --mode notify   # into its transcript, no run",
			"switchboard send --channel telegram --to telegram:-1001 \"deploy done\"   # straight to a Telegram group",
			"switchboard send --channel telegram --to telegram:-1001 --file chart.png \"this week\"   # a photo with a caption",
		},
		define: func(e *env, fs *flag.FlagSet) func([]string) error {
			var timeout intFlag
			fs.Var(&timeout, "timeout", "wait up to `SECONDS` for the reply ("+api.SendTimeout.Describe()+"; 0 = do not wait)")
			as := fs.String("as", "", "send as session `KEY` (default: the default agent's main session, operator)")
			channel := fs.String("channel", "", "with --to: the `CHANNEL` to deliver on (telegram, discord, a channels.webhook name; default the session's)")
			to := fs.String("to", "", "deliver MESSAGE to `RECIPIENT` on --channel (telegram:<chatId>, discord:<channelId>) instead of into a session")
			session := fs.String("session", "", "with --to: the session `KEY` whose transcript records the message (default main)")
			var files listFlag
			fs.Var(&files, "file", "with --to: send the file at `PATH` too (repeatable)")
			mode := fs.String("mode", "", "`MODE`: followup (default: after the target's current run), steer (into its running run at the next step) or notify (into its transcript, no run)")
			return func(pos []string) error {
				if *to != "" {
					specs, err := readFiles(files.v)
					if err != nil {
						return err
					}
					return deliverTo(e, api.DeliverRequest{SessionKey: *session, Channel: *channel, To: *to, Message: strings.Join(pos, " "),
						Attachments: specs}, pos, *as)
				}
				if *channel != "" || *session != "" || len(files.v) > 0 {
					return e.usagef("--channel, --session and --file go with --to")
				}
				if err := e.wantArgs(pos, 2, -1, "KEY", "MESSAGE"); err != nil {
					return err
				}
				p := api.SendRequest{SessionKey: pos[0], Message: strings.Join(pos[1:], " ")}
				switch *mode {
				case "", api.SendFollowup, api.SendSteer, api.SendNotify:
					p.Mode = *mode
				default:
					return e.usagef("--mode must be %s (got %q)", strings.Join(api.SendModes(), ", "), *mode)
				}
				if timeout.set {
					n, err := e.limited("timeout", &timeout, api.SendTimeout, 0)
					if err != nil {
						return err
					}
					p.TimeoutSeconds = &n
				}
				return e.withService(writes, func(s *service) error {
					if e.detach {
						zero := 0 // in-process the run is only recorded; through a gateway it goes on there
						p.TimeoutSeconds = &zero
					}
					res, err := s.Send(e.ctx, principal(*as), p)
					if err != nil {
						return err
					}
					res.SessionKey = s.canonical(res.SessionKey, *as)
					if e.json {
						if err := printJSON(e.stdout, res); err != nil {
							return err
						}
					} else if err := writeSend(e, res); err != nil {
						return err
					}
					if res.Status != "ok" && res.Status != "accepted" && res.Status != api.StatusPendingApproval {
						return &exitErr{code: exitError}
					}
					return nil
				})
			}
		},
	}
}

// deliverTo queues a message straight to a chat (`send --to`).
func deliverTo(e *env, req api.DeliverRequest, pos []string, as string) error {
	if len(req.Attachments) == 0 {
		if err := e.wantArgs(pos, 1, -1, "MESSAGE"); err != nil {
			return err
		}
	}
	return e.withService(writes, func(s *service) error {
		res, err := s.Deliver(e.ctx, principal(as), req)
		if err != nil {
			return err
		}
		res.SessionKey = s.canonical(res.SessionKey, as)
		if e.json {
			return printJSON(e.stdout, res)
		}
		t := newTable(e.stdout, "status:", res.Status)
		t.row("messageId:", res.MessageID)
		t.row("channel:", res.Channel)
		t.row("to:", res.To)
		t.row("session:", res.SessionKey)
		return t.flush()
	})
}

// writeSend prints a send's result.
func writeSend(e *env, res api.SendResult) error {
	key := res.SessionKey
	t := newTable(e.stdout, "status:", res.Status)
	if res.MessageID != "" {
		t.row("messageId:", res.MessageID)
	} else {
		t.row("runId:", orDash(res.RunID))
	}
	if key != "" {
		t.row("session:", key)
	}
	if res.ApprovalID != "" {
		t.row("approval:", res.ApprovalID)
	}
	if res.Error != "" {
		t.row("error:", res.Error)
	}
	if res.Delivery != nil {
		// The tool result's delivery {mode, status} as it was when the send
		// answered: "delivery: announce pending" (the announce step runs
		// after the reply), not "announce: announce, pending".
		t.row("delivery:", res.Delivery.Mode+" "+res.Delivery.Status)
	}
	if err := t.flush(); err != nil {
		return err
	}
	if res.Reply != "" {
		_, err := fmt.Fprintf(e.stdout, "reply:\n%s\n", indent(res.Reply, "  "))
		return err
	}
	return nil
}
