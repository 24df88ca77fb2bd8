package cli

import (
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

var runStatuses = []domain.RunStatus{domain.RunQueued, domain.RunRunning, domain.RunOK, domain.RunError, domain.RunTimeout, domain.RunCancelled}

func runsCommand() *command {
	return &command{
		name:    "runs",
		summary: "inspect, wait for and cancel runs",
		help:    "Every chat turn, send, reply-back step, announce and sub-agent is a durable run with an id.",
		subs:    []*command{runsGetCommand(), runsWaitCommand(), runsCancelCommand(), runsListCommand()},
	}
}

func runsGetCommand() *command {
	return &command{
		name:    "get",
		args:    "RUNID",
		summary: "show one run",
		example: []string{"switchboard runs get 6f1c…", "switchboard runs get 6f1c… --json"},
		define: func(e *env, fs *flag.FlagSet) func([]string) error {
			return func(pos []string) error {
				if err := e.wantArgs(pos, 1, 1, "RUNID"); err != nil {
					return err
				}
				return e.withService(reads, func(s *service) error {
					r, err := s.GetRun(e.ctx, api.Operator(), strings.TrimSpace(pos[0]))
					if err != nil {
						return err
					}
					return writeRun(e, r)
				})
			}
		},
	}
}

func runsWaitCommand() *command {
	return &command{
		name:    "wait",
		args:    "RUNID",
		summary: "wait for a run to end and show it",
		help:    "Exit status 0 when the run ended ok, 1 when it ended otherwise or the wait timed out first.",
		example: []string{"switchboard runs wait 6f1c… --timeout 120"},
		define: func(e *env, fs *flag.FlagSet) func([]string) error {
			var timeout intFlag
			fs.Var(&timeout, "timeout", "wait up to `SECONDS` ("+api.WaitTimeout.Describe()+")")
			return func(pos []string) error {
				if err := e.wantArgs(pos, 1, 1, "RUNID"); err != nil {
					return err
				}
				secs, err := e.limited("timeout", &timeout, api.WaitTimeout, int(api.WaitTimeout.Default))
				if err != nil {
					return err
				}
				return e.withService(reads, func(s *service) error {
					r, err := waitRun(e, s, api.Operator(), strings.TrimSpace(pos[0]), time.Duration(secs)*time.Second)
					if err != nil {
						return err
					}
					if err := writeRun(e, r); err != nil {
						return err
					}
					switch {
					case !domain.RunTerminal(r.Status):
						return &exitErr{code: exitError, msg: fmt.Sprintf("run %s is still %s after %ds", r.ID, r.Status, secs)}
					case r.Status != domain.RunOK:
						return &exitErr{code: exitError}
					}
					return nil
				})
			}
		},
	}
}

func runsCancelCommand() *command {
	return &command{
		name:    "cancel",
		args:    "RUNID",
		summary: "cancel a run and every run it started",
		help: "Prints `cancelled`, or `already ended: <status>` for a run that had ended before (exit 0 both);\n" +
			"--json prints the run with `cancelled` and `alreadyEnded` (true|false).",
		example: []string{"switchboard runs cancel 6f1c…"},
		define: func(e *env, fs *flag.FlagSet) func([]string) error {
			return func(pos []string) error {
				if err := e.wantArgs(pos, 1, 1, "RUNID"); err != nil {
					return err
				}
				return e.withService(writes, func(s *service) error {
					res, err := s.CancelRun(e.ctx, api.Operator(), strings.TrimSpace(pos[0]))
					if err != nil {
						return err
					}
					if e.json {
						return printJSON(e.stdout, res)
					}
					if res.Cancelled {
						_, err = fmt.Fprintln(e.stdout, "cancelled")
					} else {
						_, err = fmt.Fprintf(e.stdout, "already ended: %s\n", res.Status)
					}
					return err
				})
			}
		},
	}
}

func runsListCommand() *command {
	return &command{
		name:    "list",
		summary: "list runs, newest first",
		example: []string{
			"switchboard runs list",
			"switchboard runs list --session agent:main:research --status ok --limit 5",
		},
		define: func(e *env, fs *flag.FlagSet) func([]string) error {
			var limit intFlag
			session := fs.String("session", "", "only runs of session `KEY`")
			var status listFlag
			status.split = true
			fs.Var(&status, "status", "only runs with these `STATUSES` (comma-separated: "+strings.Join(domain.Strings(runStatuses), ",")+")")
			fs.Var(&limit, "limit", "at most `N` runs ("+api.RunsListLimit.Describe()+")")
			return func(pos []string) error {
				if err := e.wantArgs(pos, 0, 0); err != nil {
					return err
				}
				n, err := e.limited("limit", &limit, api.RunsListLimit, int(api.RunsListLimit.Default))
				if err != nil {
					return err
				}
				q := api.RunsRequest{SessionKey: *session, Limit: n}
				for _, s := range status.v {
					s = strings.ToLower(s)
					if !contains(domain.Strings(runStatuses), s) {
						return e.usagef("--status: unknown status %q (use %s)", s, strings.Join(domain.Strings(runStatuses), ", "))
					}
					q.Statuses = append(q.Statuses, domain.RunStatus(s))
				}
				return e.withService(reads, func(s *service) error {
					runs, err := s.ListRuns(e.ctx, api.Operator(), q)
					if err != nil {
						return err
					}
					if runs == nil {
						runs = []domain.Run{}
					}
					if e.json {
						return printJSON(e.stdout, map[string]any{"count": len(runs), "runs": runs})
					}
					if len(runs) == 0 {
						_, err := fmt.Fprintln(e.stdout, "No runs.")
						return err
					}
					now := time.Now()
					t := newTable(e.stdout, "RUNID", "KIND", "SESSION", "STATUS", "CREATED", "RUNTIME", "REPLY/ERROR")
					for _, r := range runs {
						t.row(r.ID, string(r.Kind), r.SessionKey, string(r.Status), ago(r.CreatedAt, now), duration(r.StartedAt, r.EndedAt), clip(orDefault(r.Error, r.Reply), 60))
					}
					return t.flush()
				})
			}
		},
	}
}

// readOnlyPoll is how often a wait re-reads a run in an engine opened
// read-only: the process that runs it is another one, whose wake-ups do
// not reach this one.
const readOnlyPoll = 200 * time.Millisecond

// waitRun waits up to timeout for a run to end and returns it as it is
// then.
func waitRun(e *env, s *service, p api.Principal, runID string, timeout time.Duration) (domain.Run, error) {
	if !s.readOnly {
		return s.WaitRun(e.ctx, p, api.WaitRequest{RunID: runID, Timeout: timeout})
	}
	deadline := time.Now().Add(timeout)
	for {
		step := min(time.Until(deadline), readOnlyPoll)
		r, err := s.WaitRun(e.ctx, p, api.WaitRequest{RunID: runID, Timeout: max(step, 0)})
		if err != nil || domain.RunTerminal(r.Status) || step <= 0 {
			return r, err
		}
	}
}

// writeRun prints a run (JSON: the run row as stored).
func writeRun(e *env, r domain.Run) error {
	if e.json {
		return printJSON(e.stdout, r)
	}
	t := newTable(e.stdout, "runId:", r.ID)
	t.row("kind:", string(r.Kind))
	t.row("session:", r.SessionKey)
	t.row("status:", string(r.Status))
	if r.ParentRunID != "" {
		t.row("parent run:", r.ParentRunID)
	}
	if r.RequesterKey != "" {
		t.row("requester:", r.RequesterKey)
	}
	if r.TraceID != "" {
		t.row("trace:", strings.TrimSpace(r.TraceID+" "+r.TraceURL))
	}
	t.row("created:", stamp(r.CreatedAt))
	if r.StartedAt > 0 {
		t.row("runtime:", duration(r.StartedAt, r.EndedAt))
	}
	if r.Usage.TotalTokens > 0 {
		t.row("tokens:", fmt.Sprintf("%d (in %d / out %d)", r.Usage.TotalTokens, r.Usage.Input, r.Usage.Output))
	}
	if r.Message != "" {
		t.row("message:", clip(r.Message, 200))
	}
	if r.Error != "" {
		t.row("error:", r.Error)
	}
	if err := t.flush(); err != nil {
		return err
	}
	if r.Reply != "" {
		_, err := fmt.Fprintf(e.stdout, "reply:\n%s\n", indent(r.Reply, "  "))
		return err
	}
	return nil
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
