package cli

import (
	"encoding/base64"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/attachments"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// maxAttachFileBytes refuses huge files before reading them; the engine
// applies the configured (smaller) limits.
const maxAttachFileBytes = 64 << 20

func spawnCommand() *command {
	return &command{
		name:    "spawn",
		args:    "TASK",
		summary: "spawn a sub-agent (sessions_spawn); its result is announced back",
		help: "Starts a sub-agent run in a new isolated session and returns at once; the child's result is\n" +
			"announced back to the requester session (the default agent's main session, or --as KEY).\n" +
			"In-process (no gateway running) the command waits for the child and its announce, and prints\n" +
			"the child's result, unless --detach. --attach sends files to the child (base64), which needs\n" +
			"tools.sessions_spawn.attachments.enabled in the config.",
		example: []string{
			"switchboard spawn \"list the open questions in notes.md\" --label triage",
			"switchboard spawn \"review this\" --attach ./patch.diff --attach ./notes.md --cleanup delete",
			"switchboard spawn \"carry on from here\" --context fork   # the child also gets main's recent conversation",
			"switchboard spawn \"long job\" --run-timeout 600 --detach --json",
		},
		define: func(e *env, fs *flag.FlagSet) func([]string) error {
			var timeout intFlag
			var attach listFlag
			agent := fs.String("agent", "", "spawn under agent `ID` (if allowed)")
			label := fs.String("label", "", "the child's `LABEL`")
			model := fs.String("model", "", "model `REF` for the child (provider/model)")
			thinking := fs.String("thinking", "", "thinking `LEVEL`: off, minimal, low, medium or high")
			fs.Var(&timeout, "run-timeout", "abort the child run after `SECONDS` ("+api.SpawnRunTimeout.Describe()+"; 0 = no limit)")
			fs.Var(&timeout, "timeout", "`SECONDS`: the same as --run-timeout")
			cleanup := fs.String("cleanup", "", "`MODE`: delete the child session after its announce, or keep it (default)")
			fs.Var(&attach, "attach", "attach `FILE` (repeatable)")
			as := fs.String("as", "", "spawn as session `KEY` (visibility and spawn limits apply)")
			mode := fs.String("mode", "", "`MODE`: run (default: one run) or session (the child stays for sessions_send; needs --thread)")
			thread := fs.Bool("thread", false, "request thread-bound routing (the default mode becomes session)")
			sandbox := fs.String("sandbox", "", "`MODE`: inherit (default) or require (refuse unless the child runs sandboxed)")
			spawnCtx := fs.String("context", "", "`CONTEXT`: isolated (default: the task alone) or fork (a copy of the requester's recent conversation first)")
			var budget budgetFlags
			budget.define(fs)
			return func(pos []string) error {
				if err := e.wantArgs(pos, 1, -1, "TASK"); err != nil {
					return err
				}
				p := api.SpawnRequest{Task: strings.Join(pos, " "), Label: *label, AgentID: *agent, Model: *model}
				switch api.NormalizeThinking(*thinking) {
				case "", "off", "minimal", "low", "medium", "high":
					p.Thinking = api.NormalizeThinking(*thinking)
				default:
					return e.usagef("--thinking must be off, minimal, low, medium or high (got %q)", *thinking)
				}
				switch *cleanup {
				case "", "delete", "keep":
					p.Cleanup = *cleanup
				default:
					return e.usagef("--cleanup must be delete or keep (got %q)", *cleanup)
				}
				switch *mode {
				case "", "run", "session":
					p.Mode, p.Thread = *mode, *thread
				default:
					return e.usagef("--mode must be run or session (got %q)", *mode)
				}
				switch *sandbox {
				case "", "inherit", "require":
					p.Sandbox = *sandbox
				default:
					return e.usagef("--sandbox must be inherit or require (got %q)", *sandbox)
				}
				switch *spawnCtx {
				case "", api.SpawnIsolated, api.SpawnFork:
					p.Context = *spawnCtx
				default:
					return e.usagef("--context must be %s (got %q)", strings.Join(api.SpawnContexts(), " or "), *spawnCtx)
				}
				if timeout.set {
					n, err := e.limited("run-timeout", &timeout, api.SpawnRunTimeout, 0)
					if err != nil {
						return err
					}
					p.RunTimeoutSeconds = &n
				}
				if b, err := budget.request(); err != nil {
					return e.usagef("%s", err)
				} else if b != nil {
					p.Budget = b
				}
				for _, path := range attach.v {
					spec, err := readAttachment(path)
					if err != nil {
						return err
					}
					p.Attachments = append(p.Attachments, spec)
				}
				return e.withService(writes, func(s *service) error {
					pr := principal(*as)
					res, err := s.Spawn(e.ctx, pr, p)
					if err != nil {
						return err
					}
					if e.json {
						return printJSON(e.stdout, res)
					}
					fmt.Fprintf(e.stdout, "spawned %s (run %s)\n", res.ChildSessionKey, res.RunID)
					if res.Budget != nil {
						fmt.Fprintf(e.stdout, "budget: %s\n", budgetText(*res.Budget))
					}
					if res.Attachments != nil {
						fmt.Fprintf(e.stdout, "attachments: %d files in %s\n", len(res.Attachments.Files), res.Attachments.RelDir)
					}
					if s.Remote() || e.detach {
						_, err := fmt.Fprintln(e.stdout, "the result will be announced back to the requester session")
						return err
					}
					return writeChildResult(e, s, pr, res.RunID)
				})
			}
		},
	}
}

// writeChildResult waits for an in-process child and prints its result.
// The child may run as long as its run timeout allows; each wait is one
// of the longest a wait may be.
func writeChildResult(e *env, s *service, p api.Principal, runID string) error {
	var run domain.Run
	for !domain.RunTerminal(run.Status) {
		var err error
		if run, err = s.WaitRun(e.ctx, p, api.WaitRequest{RunID: runID, Timeout: time.Duration(api.WaitTimeout.Max) * time.Second}); err != nil {
			return err
		}
	}
	fmt.Fprintf(e.stdout, "child finished: %s\n", run.Status)
	if run.Error != "" {
		fmt.Fprintf(e.stdout, "error: %s\n", run.Error)
	}
	if run.Reply != "" {
		fmt.Fprintf(e.stdout, "result:\n%s\n", indent(run.Reply, "  "))
	}
	if run.Status != domain.RunOK {
		return &exitErr{code: exitError}
	}
	return nil
}

// readAttachment reads a file for --attach: its base name and base64
// content.
func readAttachment(path string) (attachments.Spec, error) {
	st, err := os.Stat(path)
	if err != nil {
		return attachments.Spec{}, inputFile("--attach", path, err)
	}
	if !st.Mode().IsRegular() {
		return attachments.Spec{}, domain.Invalid("--attach %s: not a regular file", path)
	}
	if st.Size() > maxAttachFileBytes {
		return attachments.Spec{}, domain.Invalid("--attach %s: %d bytes is over the %d-byte limit", path, st.Size(), maxAttachFileBytes)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return attachments.Spec{}, inputFile("--attach", path, err)
	}
	return attachments.Spec{Name: filepath.Base(path), Content: base64.StdEncoding.EncodeToString(data), Encoding: attachments.EncodingBase64}, nil
}
