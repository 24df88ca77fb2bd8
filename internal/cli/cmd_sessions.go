package cli

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/engine"
)

// Bounds of the session commands, the same as the session tools'.
const (
	listLimitMax        = 200
	listMessagesMax     = 20
	activeMinutesMax    = 60 * 24 * 365
	historyLimitDefault = 50
	historyLimitMax     = 1000
)

var sessionKinds = []string{domain.KindMain, domain.KindGroup, domain.KindCron, domain.KindHook, domain.KindNode, domain.KindOther}

func sessionsCommand() *command {
	return &command{
		name:    "sessions",
		summary: "list, read and manage sessions",
		help: "KEY is a session key (agent:<agentId>:<rest>), `main` for the default agent's main session, or a\n" +
			"sessionId from `sessions list`. Without --as the CLI has operator rights and sees every session;\n" +
			"--as KEY acts as that session, so tools.sessions.visibility applies.",
		subs: []*command{sessionsListCommand(), sessionsHistoryCommand(), sessionsPatchCommand(), sessionsResetCommand(), sessionsDeleteCommand()},
	}
}

func sessionsListCommand() *command {
	return &command{
		name:    "list",
		summary: "list sessions, newest first",
		help: "Lists sessions like the sessions_list tool (newest updatedAt first, archived sessions hidden).\n" +
			"--limit is clamped to 200 and --messages to 20.",
		example: []string{
			"switchboard sessions list",
			"switchboard sessions list --kinds main,group --active-minutes 60",
			"switchboard sessions list --messages 2 --json",
			"switchboard sessions list --as agent:main:research   # what that session may see",
		},
		define: func(e *env, fs *flag.FlagSet) func([]string) error {
			var kinds listFlag
			kinds.split = true
			var limit, active, messages intFlag
			fs.Var(&kinds, "kinds", "only these `KINDS` (comma-separated: main,group,cron,hook,node,other)")
			fs.Var(&limit, "limit", "at most `N` rows (1..200, default 50)")
			fs.Var(&active, "active-minutes", "only sessions updated in the last `N` minutes")
			fs.Var(&messages, "messages", "include the last `N` messages of each session (0..20)")
			agent := fs.String("agent", "", "only sessions of agent `ID`")
			search := fs.String("search", "", "only sessions whose key, label or name contains `TEXT`")
			archived := fs.Bool("archived", false, "include archived sessions")
			as := fs.String("as", "", "act as session `KEY` (visibility applies)")
			return func(pos []string) error {
				if err := e.wantArgs(pos, 0, 0, ""); err != nil {
					return err
				}
				var p engine.ListParams
				for _, k := range kinds.v {
					k = strings.ToLower(k)
					if !slices.Contains(sessionKinds, k) {
						return e.usagef("--kinds: unknown kind %q (use %s)", k, strings.Join(sessionKinds, ", "))
					}
					p.Kinds = append(p.Kinds, k)
				}
				var err error
				if p.Limit, err = e.bounded("limit", &limit, 1, listLimitMax, 0); err != nil {
					return err
				}
				if p.ActiveMinutes, err = e.bounded("active-minutes", &active, 1, activeMinutesMax, 0); err != nil {
					return err
				}
				if p.MessageLimit, err = e.bounded("messages", &messages, 0, listMessagesMax, 0); err != nil {
					return err
				}
				p.AgentID = strings.ToLower(strings.TrimSpace(*agent))
				p.Search = *search
				p.IncludeArchived = *archived
				return e.withReadBackend(func(b backend) error {
					res, err := b.ListSessions(e.ctx, *as, p)
					if err != nil {
						return err
					}
					if e.json {
						return printJSON(e.stdout, res)
					}
					return writeSessions(e, res)
				})
			}
		},
	}
}

// writeSessions prints a sessions table (and messages, when asked for).
func writeSessions(e *env, res engine.ListResult) error {
	if res.Count == 0 {
		_, err := fmt.Fprintln(e.stdout, "No sessions.")
		return err
	}
	now := time.Now()
	t := newTable(e.stdout, "KEY", "KIND", "CHANNEL", "UPDATED", "TOKENS", "MODEL", "LABEL", "STATUS")
	for _, s := range res.Sessions {
		tokens := "-"
		if s.TotalTokens > 0 {
			tokens = fmt.Sprint(s.TotalTokens)
		}
		status := s.Status
		if s.AbortedLastRun {
			status = strings.TrimSpace(status + " aborted")
		}
		if s.ArchivedAt > 0 {
			status = strings.TrimSpace(status + " archived")
		}
		t.row(s.Key, s.Kind, s.Channel, ago(s.UpdatedAt, now), tokens, orDash(s.Model), orDash(s.Label), orDash(status))
	}
	if err := t.flush(); err != nil {
		return err
	}
	for _, s := range res.Sessions {
		if len(s.Messages) == 0 {
			continue
		}
		fmt.Fprintf(e.stdout, "\n%s:\n", s.Key)
		for _, m := range s.Messages {
			writeMessage(e.stdout, m, msgStyle{maxLines: 4})
		}
	}
	noun := "sessions"
	if res.Count == 1 {
		noun = "session"
	}
	_, err := fmt.Fprintf(e.stdout, "%d %s\n", res.Count, noun)
	return err
}

func sessionsHistoryCommand() *command {
	return &command{
		name:    "history",
		args:    "KEY|SESSIONID",
		summary: "show a session's transcript",
		help: "Shows the newest messages, oldest first, sanitized like the sessions_history tool (long texts\n" +
			"capped, credentials masked) unless --raw. Tool results are hidden unless --include-tools.",
		example: []string{
			"switchboard sessions history main",
			"switchboard sessions history agent:main:research --limit 10 --include-tools",
			"switchboard sessions history 0b0e8a41-6c1d-4c57-9a52-2b1f3f7f0001 --raw --json",
		},
		define: func(e *env, fs *flag.FlagSet) func([]string) error {
			var limit intFlag
			fs.Var(&limit, "limit", "the newest `N` messages (1..1000, default 50)")
			tools := fs.Bool("include-tools", false, "include tool results")
			raw := fs.Bool("raw", false, "the stored transcript, not sanitized")
			as := fs.String("as", "", "act as session `KEY` (visibility applies)")
			return func(pos []string) error {
				if err := e.wantArgs(pos, 1, 1, "KEY|SESSIONID"); err != nil {
					return err
				}
				n, err := e.bounded("limit", &limit, 1, historyLimitMax, historyLimitDefault)
				if err != nil {
					return err
				}
				p := engine.HistoryParams{SessionKey: pos[0], Limit: n, IncludeTools: *tools, Raw: *raw}
				return e.withReadBackend(func(b backend) error {
					res, err := b.History(e.ctx, *as, p)
					if err != nil {
						return err
					}
					if e.json {
						return printJSON(e.stdout, res)
					}
					return writeHistory(e, res)
				})
			}
		},
	}
}

func writeHistory(e *env, res engine.HistoryResult) error {
	head := res.SessionKey
	if res.SessionID != "" {
		head += "  (sessionId " + res.SessionID + ")"
	}
	fmt.Fprintln(e.stdout, head)
	if len(res.Messages) == 0 {
		_, err := fmt.Fprintln(e.stdout, "No messages.")
		return err
	}
	for _, m := range res.Messages {
		writeMessage(e.stdout, m, msgStyle{})
	}
	var notes []string
	if res.DroppedMessages {
		notes = append(notes, "older messages dropped to fit the size cap")
	}
	if res.ContentTruncated {
		notes = append(notes, "long texts truncated")
	}
	if res.ContentRedacted {
		notes = append(notes, "credentials masked")
	}
	if len(notes) > 0 {
		fmt.Fprintf(e.stdout, "(%s; use --raw for the stored transcript)\n", strings.Join(notes, "; "))
	}
	return nil
}

func sessionsPatchCommand() *command {
	return &command{
		name:    "patch",
		args:    "KEY",
		summary: "change a session's settings (creates it when missing)",
		help:    "An empty value clears a setting (inherit): --label \"\" removes the label.",
		example: []string{
			"switchboard sessions patch agent:main:research --label research",
			"switchboard sessions patch main --send-policy deny",
			"switchboard sessions patch main --model openai/gpt-4.1-mini --thinking low",
		},
		define: func(e *env, fs *flag.FlagSet) func([]string) error {
			var label, policy, model, thinking strFlag
			fs.Var(&policy, "send-policy", "`POLICY`: allow, deny or inherit (the config decides)")
			fs.Var(&label, "label", "the session's `LABEL` (unique per agent)")
			fs.Var(&model, "model", "model `REF` for this session's runs (provider/model)")
			fs.Var(&thinking, "thinking", "thinking `LEVEL`: off, minimal, low, medium or high")
			return func(pos []string) error {
				if err := e.wantArgs(pos, 1, 1, "KEY"); err != nil {
					return err
				}
				p := engine.PatchParams{Label: label.ptr(), SendPolicy: policy.ptr(), Model: model.ptr(), ThinkingLevel: thinking.ptr()}
				if p.SendPolicy != nil {
					switch v := strings.ToLower(strings.TrimSpace(*p.SendPolicy)); v {
					case "allow", "deny", "inherit", "":
						*p.SendPolicy = v
					default:
						return e.usagef("--send-policy must be allow, deny or inherit (got %q)", *p.SendPolicy)
					}
				}
				if p == (engine.PatchParams{}) {
					return e.usagef("nothing to change: give --send-policy, --label, --model or --thinking")
				}
				return e.withBackend(func(b backend) error {
					s, err := b.Patch(e.ctx, pos[0], p)
					if err != nil {
						return err
					}
					if e.json {
						return printJSON(e.stdout, s)
					}
					_, err = fmt.Fprintf(e.stdout, "patched %s: label=%s sendPolicy=%s model=%s thinking=%s\n", s.Key,
						orDash(s.Label), orDefault(s.SendPolicy, "inherit"), orDefault(s.ModelOverride, "(agent default)"), orDash(s.ThinkingLevel))
					return err
				})
			}
		},
	}
}

func sessionsResetCommand() *command {
	return &command{
		name:    "reset",
		args:    "KEY",
		summary: "start a new transcript for a session (the old one is kept)",
		example: []string{"switchboard sessions reset main"},
		define: func(e *env, fs *flag.FlagSet) func([]string) error {
			return func(pos []string) error {
				if err := e.wantArgs(pos, 1, 1, "KEY"); err != nil {
					return err
				}
				return e.withBackend(func(b backend) error {
					s, err := b.Reset(e.ctx, pos[0])
					if err != nil {
						return err
					}
					if e.json {
						return printJSON(e.stdout, map[string]any{"ok": true, "key": s.Key, "entry": s})
					}
					_, err = fmt.Fprintf(e.stdout, "reset %s: new sessionId %s\n", s.Key, s.SessionID)
					return err
				})
			}
		},
	}
}

func sessionsDeleteCommand() *command {
	return &command{
		name:    "delete",
		args:    "KEY",
		summary: "delete a session and its transcript (not a main session)",
		example: []string{"switchboard sessions delete agent:main:research"},
		define: func(e *env, fs *flag.FlagSet) func([]string) error {
			return func(pos []string) error {
				if err := e.wantArgs(pos, 1, 1, "KEY"); err != nil {
					return err
				}
				return e.withBackend(func(b backend) error {
					key, err := b.Delete(e.ctx, pos[0])
					if err != nil {
						return err
					}
					if e.json {
						return printJSON(e.stdout, map[string]any{"ok": true, "key": key, "deleted": true})
					}
					_, err = fmt.Fprintf(e.stdout, "deleted %s\n", key)
					return err
				})
			}
		},
	}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
