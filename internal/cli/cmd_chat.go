package cli

import (
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// chatOutput is chat's --json payload.
type chatOutput struct {
	RunID      string `json:"runId,omitempty"`
	SessionKey string `json:"sessionKey"`
	// Status is the run's status (ok, error, timeout, cancelled, or queued
	// and running when the wait ended first), or "ok" for a command.
	Status  string `json:"status"`
	Reply   string `json:"reply,omitempty"`
	Error   string `json:"error,omitempty"`
	Command string `json:"command,omitempty"`
	// WaitTimedOut is true when --wait passed before the run ended.
	WaitTimedOut bool `json:"waitTimedOut,omitempty"`
}

// chatWaitDefault is how long chat waits for the reply unless --wait says
// otherwise (a model's answer takes longer than a tool's default wait).
const chatWaitDefault = 120

func chatCommand() *command {
	return &command{
		name:    "chat",
		args:    "KEY MESSAGE",
		summary: "send a user message into a session and print the reply",
		help: "The message arrives as a user message on the webchat channel (or --channel), as if typed in a chat app.\n" +
			"/new, /reset, /stop and /send on|off|inherit are commands handled before the model; their answer\n" +
			"is printed (a refused command, such as /send with a wrong argument, exits 1). --wait 0 prints the runId at once instead of the reply; in-process (no gateway) the\n" +
			"command still lets the run finish before it exits, unless --detach.",
		example: []string{
			"switchboard chat main \"hello\"",
			"switchboard chat main \"summarize the research session\" --wait 300 --json",
			"switchboard chat agent:main:research /reset",
			"switchboard chat agent:main:telegram:group:42 \"status?\" --channel telegram --to 42 --deliver",
		},
		define: func(e *env, fs *flag.FlagSet) func([]string) error {
			var wait intFlag
			fs.Var(&wait, "wait", fmt.Sprintf("wait up to `SECONDS` for the reply (0..%d, default %d; 0 = do not wait)", api.WaitTimeout.Max, chatWaitDefault))
			as := fs.String("as", "", "chat as session `KEY` (it must be able to see the target session)")
			channel := fs.String("channel", "", "the `CHANNEL` the message arrives on (default webchat; last = the session's last channel)")
			to := fs.String("to", "", "the sender's `ID` on the channel: where the session's replies go")
			deliver := fs.Bool("deliver", false, "deliver the reply to the channel (--channel/--to, else the session's last ones) through the outbox; refused when no external channel, or no recipient on it, resolves")
			bestEffort := fs.Bool("best-effort-deliver", false, "with --deliver: run without delivery when no external channel or recipient resolves")
			stream := streamMode("auto")
			fs.Var(&stream, "stream", "print the reply as it arrives (`MODE`): auto (the default: when stdout is a terminal and not --json), on (refused with --json) or off")
			return func(pos []string) error {
				if err := e.wantArgs(pos, 2, -1, "KEY", "MESSAGE"); err != nil {
					return err
				}
				// --json prints one document; streamed text before it would
				// break every parser, so the contradiction is refused.
				if stream == "on" && e.json {
					return e.usagef("--stream on cannot be combined with --json (--json prints one document; use --stream off or drop --json)")
				}
				if *bestEffort && !*deliver {
					return e.usagef("--best-effort-deliver needs --deliver (it only lets a --deliver run go on when no external channel resolves)")
				}
				secs, err := e.limited("wait", &wait, api.WaitTimeout, chatWaitDefault)
				if err != nil {
					return err
				}
				msg := strings.Join(pos[1:], " ")
				return e.withService(writes, func(s *service) error {
					if e.detach {
						secs = 0 // in-process the run is only recorded; through a gateway it goes on there
					}
					req := api.ChatRequest{SessionKey: pos[0], Message: msg, Channel: *channel, To: *to,
						Deliver: *deliver, BestEffortDeliver: *bestEffort}
					return runChat(e, s, principal(*as), req, time.Duration(secs)*time.Second, stream.streams(e, secs > 0))
				})
			}
		},
	}
}

func runChat(e *env, s *service, p api.Principal, req api.ChatRequest, wait time.Duration, streamed bool) error {
	var live *replyPrinter
	if streamed {
		// Armed before the call so no piece of the reply is missed.
		live = &replyPrinter{w: e.stdout}
		f := follow(e.ctx, s, live)
		defer f.stop()
		live.settle = f.settle
		res, err := s.Chat(e.ctx, p, req)
		if err != nil {
			return err
		}
		if res.Command == "" {
			f.start(res.SessionKey, res.Run.ID)
		}
		return chatResult(e, s, p, res, wait, live)
	}
	res, err := s.Chat(e.ctx, p, req)
	if err != nil {
		return err
	}
	return chatResult(e, s, p, res, wait, nil)
}

// chatResult waits for the reply of a chat call and prints it; live, when
// set, has been printing it as it arrived.
func chatResult(e *env, s *service, p api.Principal, res api.ChatResult, wait time.Duration, live *replyPrinter) error {
	if res.Command != "" {
		return writeCommand(e, res)
	}
	out := chatOutput{RunID: res.Run.ID, SessionKey: res.SessionKey, Status: string(res.Run.Status)}
	if wait == 0 {
		if e.json {
			return printJSON(e.stdout, out)
		}
		_, err := fmt.Fprintf(e.stdout, "%s\n", res.Run.ID)
		return err
	}
	run, err := waitRun(e, s, p, res.Run.ID, wait)
	if err != nil {
		return err
	}
	out.Status, out.Reply, out.Error = string(run.Status), run.Reply, run.Error
	out.WaitTimedOut = !domain.RunTerminal(run.Status)
	if e.json {
		if err := printJSON(e.stdout, out); err != nil {
			return err
		}
		if run.Status != domain.RunOK {
			return &exitErr{code: exitError}
		}
		return nil
	}
	if live != nil && domain.RunTerminal(run.Status) && live.settle != nil {
		live.settle()
	}
	if live != nil && (out.WaitTimedOut || run.Status != domain.RunOK) {
		live.breakLine()
	}
	switch {
	case out.WaitTimedOut:
		return &exitErr{code: exitError, msg: fmt.Sprintf("no reply within %s; run %s goes on (switchboard runs wait %s)", wait, run.ID, run.ID)}
	case run.Status != domain.RunOK:
		return &exitErr{code: exitError, msg: fmt.Sprintf("run %s ended %s: %s", run.ID, run.Status, orDefault(run.Error, "no details"))}
	case live != nil && live.finish(run.Reply):
		// Printed as it arrived.
	case silentReply(run.Reply):
		_, err = fmt.Fprintln(e.stderr, "(no reply)")
	default:
		_, err = fmt.Fprintln(e.stdout, run.Reply)
	}
	return err
}

// writeCommand prints a command's answer (a refused command is an error
// from the engine, reported like any other).
func writeCommand(e *env, res api.ChatResult) error {
	if e.json {
		return printJSON(e.stdout, chatOutput{SessionKey: res.SessionKey, Status: "ok", Reply: res.Reply, Command: res.Command})
	}
	_, err := fmt.Fprintln(e.stdout, res.Reply)
	return err
}

// silentReply reports whether a reply is one of the silent tokens.
func silentReply(s string) bool {
	switch strings.TrimSpace(s) {
	case "", domain.NoReply, domain.ReplySkip, domain.AnnounceSkip:
		return true
	}
	return false
}
