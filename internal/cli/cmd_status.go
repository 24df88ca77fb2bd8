package cli

import (
	"flag"
	"fmt"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
)

// sessionsStatusCommand is session_status from the CLI: a session's status
// card, and with --model a switch of its model.
func sessionsStatusCommand() *command {
	return &command{
		name:    "status",
		args:    "[KEY]",
		summary: "show a session's status card (session_status); --model switches its model",
		help: "Model, thinking level, tokens and cost, the active run and its age, queued runs, sub-agents\n" +
			"still running, send policy and last activity. KEY defaults to the default agent's main session\n" +
			"(or the --as session). --model REF switches the session's model for its next runs; --model\n" +
			"default goes back to the agent's model (it needs the admin scope, like sessions patch).",
		example: []string{
			"switchboard sessions status",
			"switchboard sessions status agent:main:research --json",
			"switchboard sessions status main --model openai/gpt-4.1-mini",
			"switchboard sessions status main --model default",
		},
		define: func(e *env, fs *flag.FlagSet) func([]string) error {
			var model strFlag
			fs.Var(&model, "model", "switch the session's model to `REF` (provider/model), or default to clear the switch")
			as := fs.String("as", "", "ask as session `KEY` (visibility applies)")
			return func(pos []string) error {
				if err := e.wantArgs(pos, 0, 1); err != nil {
					return err
				}
				req := api.StatusRequest{}
				if len(pos) == 1 {
					req.SessionKey = pos[0]
				}
				mode := reads
				if p := model.ptr(); p != nil {
					if *p == "" {
						return e.usagef("--model needs a model reference (provider/model) or default")
					}
					req.Model, mode = *p, writes
				}
				return e.withService(mode, func(s *service) error {
					res, err := s.SessionStatus(e.ctx, principal(*as), req)
					if err != nil {
						return err
					}
					res.SessionKey = s.canonical(res.SessionKey, *as)
					if e.json {
						return printJSON(e.stdout, res)
					}
					return writeStatus(e, res)
				})
			}
		},
	}
}

// writeStatus prints a status card.
func writeStatus(e *env, r api.StatusResult) error {
	t := newTable(e.stdout, "session:", r.SessionKey)
	t.row("agent:", r.AgentID)
	model := r.Model
	if r.ModelOverride != "" {
		model += " (session override)"
	}
	if r.ModelChanged {
		model += " — switched"
	}
	t.row("model:", model)
	t.row("thinking:", orDash(r.ThinkingLevel))
	t.row("tokens:", fmt.Sprintf("%d in, %d out, %d total, %d context", r.Tokens.Input, r.Tokens.Output, r.Tokens.Total, r.Tokens.Context))
	t.row("cost:", fmt.Sprintf("$%.4f", r.EstimatedCostUSD))
	active := "-"
	if a := r.ActiveRun; a != nil {
		active = fmt.Sprintf("%s (%s, %s)", a.RunID, a.Kind, (time.Duration(a.AgeMs) * time.Millisecond).Round(time.Second))
	}
	t.row("active run:", active)
	t.row("queued runs:", fmt.Sprint(r.QueuedRuns))
	t.row("children running:", fmt.Sprint(r.ChildrenRunning))
	policy := r.SendPolicy
	if r.SendPolicyOverride != "" {
		policy += " (session: " + r.SendPolicyOverride + ")"
	}
	t.row("send policy:", policy)
	last := "-"
	if r.LastActivity > 0 {
		last = time.UnixMilli(r.LastActivity).UTC().Format(time.RFC3339)
	}
	t.row("last activity:", last)
	if r.ForkedFromParent {
		t.row("forked:", "from its parent's conversation")
	}
	return t.flush()
}
