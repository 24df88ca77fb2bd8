package cli

import (
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/engine"
)

// chatWaitDefault is how long chat waits for the reply by default.
const chatWaitDefault = 120

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

func chatCommand() *command {
	return &command{
		name:    "chat",
		args:    "KEY MESSAGE",
		summary: "send a user message into a session and print the reply",
		help: "The message arrives as a user message on the webchat channel, as if typed in a chat app.\n" +
			"/new, /reset, /stop and /send on|off|inherit are commands handled before the model; their answer\n" +
			"is printed. --wait 0 prints the runId at once instead of the reply; in-process (no gateway) the\n" +
			"command still lets the run finish before it exits, unless --detach.",
		example: []string{
			"switchboard chat main \"hello\"",
			"switchboard chat main \"summarize the research session\" --wait 300 --json",
			"switchboard chat agent:main:research /reset",
		},
		define: func(e *env, fs *flag.FlagSet) func([]string) error {
			var wait intFlag
			fs.Var(&wait, "wait", "wait up to `SECONDS` for the reply (default 120; 0 = do not wait)")
			return func(pos []string) error {
				if err := e.wantArgs(pos, 2, -1, "KEY and MESSAGE"); err != nil {
					return err
				}
				secs, err := e.bounded("wait", &wait, 0, 24*3600, chatWaitDefault)
				if err != nil {
					return err
				}
				msg := strings.Join(pos[1:], " ")
				return e.withBackend(func(b backend) error {
					if e.detach && !b.Remote() {
						secs = 0 // the run is only recorded: there is nothing to wait for
					}
					return runChat(e, b, pos[0], msg, time.Duration(secs)*time.Second)
				})
			}
		},
	}
}

func runChat(e *env, b backend, key, msg string, wait time.Duration) error {
	res, err := b.Chat(e.ctx, engine.ChatRequest{SessionKey: key, Message: msg})
	if err != nil {
		return err
	}
	if res.Command != "" {
		if e.json {
			return printJSON(e.stdout, chatOutput{SessionKey: res.SessionKey, Status: "ok", Reply: res.Reply, Command: res.Command})
		}
		_, err := fmt.Fprintln(e.stdout, res.Reply)
		return err
	}
	out := chatOutput{RunID: res.Run.ID, SessionKey: res.SessionKey, Status: res.Run.Status}
	if wait == 0 {
		if e.json {
			return printJSON(e.stdout, out)
		}
		_, err := fmt.Fprintf(e.stdout, "%s\n", res.Run.ID)
		return err
	}
	run, err := b.Wait(e.ctx, res.Run.ID, wait)
	if err != nil {
		return err
	}
	out.Status, out.Reply, out.Error = run.Status, run.Reply, run.Error
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
	switch {
	case out.WaitTimedOut:
		return &exitErr{code: exitError, msg: fmt.Sprintf("no reply within %s; run %s goes on (switchboard runs wait %s)", wait, run.ID, run.ID)}
	case run.Status != domain.RunOK:
		return &exitErr{code: exitError, msg: fmt.Sprintf("run %s ended %s: %s", run.ID, run.Status, orDefault(run.Error, "no details"))}
	case silentReply(run.Reply):
		_, err = fmt.Fprintln(e.stderr, "(no reply)")
	default:
		_, err = fmt.Fprintln(e.stdout, run.Reply)
	}
	return err
}

// silentReply reports whether a reply is one of the silent tokens.
func silentReply(s string) bool {
	switch strings.TrimSpace(s) {
	case "", engine.NoReply, engine.ReplySkip, engine.AnnounceSkip:
		return true
	}
	return false
}
