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
		args:    "KEY MESSAGE",
		summary: "send an inter-session message (sessions_send) and print the result",
		help: "Like the sessions_send tool: the message is written into KEY's session with inter-session\n" +
			"provenance, its agent answers, and the announce step runs afterwards. Sent from the CLI (outside\n" +
			"any agent run) there are no reply-back turns. --timeout 0 returns at once with status accepted.\n" +
			"Exit status 1 when the result's status is error, forbidden or timeout.",
		example: []string{
			"switchboard send agent:main:research \"find three papers on lane scheduling\"",
			"switchboard send agent:main:research \"status?\" --timeout 60 --json",
			"switchboard send main \"hi\" --as agent:main:research   # as that session (visibility applies)",
			"switchboard send agent:main:research \"also check X\" --mode steer   # into its running run",
			"switchboard send agent:main:research \"FYI: deploy done\" --mode notify   # into its transcript, no run",
		},
		define: func(e *env, fs *flag.FlagSet) func([]string) error {
			var timeout intFlag
			fs.Var(&timeout, "timeout", "wait up to `SECONDS` for the reply ("+api.SendTimeout.Describe()+"; 0 = do not wait)")
			as := fs.String("as", "", "send as session `KEY` (default: the default agent's main session, operator)")
			mode := fs.String("mode", "", "`MODE`: followup (default: after the target's current run), steer (into its running run at the next step) or notify (into its transcript, no run)")
			return func(pos []string) error {
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
					if res.Status != "ok" && res.Status != "accepted" {
						return &exitErr{code: exitError}
					}
					return nil
				})
			}
		},
	}
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
