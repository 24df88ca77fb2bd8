package cli

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

var sessionKinds = []string{domain.KindMain, domain.KindGroup, domain.KindCron, domain.KindHook, domain.KindNode, domain.KindOther}

func sessionsCommand() *command {
	return &command{
		name:    "sessions",
		summary: "list, read and manage sessions",
		help: "KEY is a session key (agent:<agentId>:<rest>), `main` for the default agent's main session, or a\n" +
			"sessionId from `sessions list`. Without --as the CLI has operator rights and sees every session;\n" +
			"--as KEY acts as that session, so tools.sessions.visibility applies.",
		subs: []*command{sessionsListCommand(), sessionsHistoryCommand(), sessionsSearchCommand(), sessionsStatusCommand(), sessionsPatchCommand(), sessionsResetCommand(), sessionsDeleteCommand()},
	}
}

func sessionsListCommand() *command {
	return &command{
		name:    "list",
		summary: "list sessions, newest first",
		help: "Lists sessions like the sessions_list tool (newest updatedAt first, archived sessions hidden).\n" +
			"--limit and --messages are clamped like the tool's limit and messageLimit.",
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
			fs.Var(&limit, "limit", "at most `N` rows ("+api.ListLimit.Describe()+")")
			fs.Var(&active, "active-minutes", "only sessions updated in the last `N` minutes ("+api.ListActiveMinutes.Describe()+")")
			fs.Var(&messages, "messages", "include the last `N` messages of each session ("+api.ListMessageLimit.Describe()+")")
			var offset intFlag
			fs.Var(&offset, "offset", "skip the first `N` rows (the nextOffset of the previous page; "+api.ListOffset.Describe()+")")
			agent := fs.String("agent", "", "only sessions of agent `ID`")
			search := fs.String("search", "", "only sessions whose key, label or name contains `TEXT`")
			archived := fs.Bool("archived", false, "include archived sessions")
			as := fs.String("as", "", "act as session `KEY` (visibility applies)")
			return func(pos []string) error {
				if err := e.wantArgs(pos, 0, 0); err != nil {
					return err
				}
				var p api.ListRequest
				for _, k := range kinds.v {
					k = strings.ToLower(k)
					if !slices.Contains(sessionKinds, k) {
						return e.usagef("--kinds: unknown kind %q (use %s)", k, strings.Join(sessionKinds, ", "))
					}
					p.Kinds = append(p.Kinds, k)
				}
				var err error
				if p.Limit, err = e.limited("limit", &limit, api.ListLimit, 0); err != nil {
					return err
				}
				if p.ActiveMinutes, err = e.limited("active-minutes", &active, api.ListActiveMinutes, 0); err != nil {
					return err
				}
				if p.MessageLimit, err = e.limited("messages", &messages, api.ListMessageLimit, 0); err != nil {
					return err
				}
				if p.Offset, err = e.limited("offset", &offset, api.ListOffset, 0); err != nil {
					return err
				}
				p.AgentID = strings.ToLower(strings.TrimSpace(*agent))
				p.Search = *search
				p.IncludeArchived = *archived
				return e.withService(reads, func(s *service) error {
					res, err := s.ListSessions(e.ctx, principal(*as), p)
					if err != nil {
						return err
					}
					s.canonicalRows(res.Sessions, *as)
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
func writeSessions(e *env, res api.ListResult) error {
	if res.Count == 0 {
		_, err := fmt.Fprintln(e.stdout, "No sessions.")
		return err
	}
	now := time.Now()
	t := newTable(e.stdout, "KEY", "KIND", "CHANNEL", "UPDATED", "TOKENS", "TREE", "BUDGET", "MODEL", "LABEL", "STATUS")
	for _, r := range res.Sessions {
		tokens := "-"
		if r.TotalTokens > 0 {
			tokens = fmt.Sprint(r.TotalTokens)
		}
		// TREE: tokens of the session and everything it spawned (usage.tree);
		// BUDGET: what that tree may spend.
		tree, budget := "-", "-"
		if r.Usage != nil && r.Usage.Tree.Tokens() > 0 {
			tree = groupDigits(r.Usage.Tree.Tokens())
		}
		if r.Budget != nil {
			budget = budgetText(*r.Budget)
		}
		status := r.Status
		if r.AbortedLastRun {
			status = strings.TrimSpace(status + " aborted")
		}
		if r.ArchivedAt > 0 {
			status = strings.TrimSpace(status + " archived")
		}
		t.row(r.Key, r.Kind, r.Channel, ago(r.UpdatedAt, now), tokens, tree, budget, orDash(r.Model), orDash(r.Label), orDash(status))
	}
	if err := t.flush(); err != nil {
		return err
	}
	for _, r := range res.Sessions {
		if len(r.Messages) == 0 {
			continue
		}
		fmt.Fprintf(e.stdout, "\n%s:\n", r.Key)
		for _, lm := range r.Messages {
			m, err := lm.Message()
			if err != nil {
				return err
			}
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
			fs.Var(&limit, "limit", "the newest `N` messages ("+api.HistoryLimit.Describe()+")")
			tools := fs.Bool("include-tools", false, "include tool results")
			var offset intFlag
			fs.Var(&offset, "offset", "skip the newest `N` messages ("+api.HistoryOffset.Describe()+")")
			before := fs.String("before", "", "only messages older than message `ID` (nextBeforeMessageId of the previous page)")
			raw := fs.Bool("raw", false, "the stored transcript, not sanitized")
			as := fs.String("as", "", "act as session `KEY` (visibility applies)")
			return func(pos []string) error {
				if err := e.wantArgs(pos, 1, 1, "KEY|SESSIONID"); err != nil {
					return err
				}
				n, err := e.limited("limit", &limit, api.HistoryLimit, int(api.HistoryLimit.Default))
				if err != nil {
					return err
				}
				off, err := e.limited("offset", &offset, api.HistoryOffset, 0)
				if err != nil {
					return err
				}
				p := api.HistoryRequest{SessionKey: pos[0], Limit: n, IncludeTools: *tools, Raw: *raw, Offset: off, BeforeMessageID: *before}
				return e.withService(reads, func(s *service) error {
					res, err := s.History(e.ctx, principal(*as), p)
					if err != nil {
						return err
					}
					res.SessionKey = s.canonical(res.SessionKey, *as)
					if e.json {
						return printJSON(e.stdout, res)
					}
					return writeHistory(e, res)
				})
			}
		},
	}
}

// writeHistory prints a transcript under its session's key.
func writeHistory(e *env, res api.HistoryResult) error {
	key := res.SessionKey
	if res.SessionID == "" && len(res.Messages) == 0 {
		_, err := fmt.Fprintf(e.stdout, "no session yet for %s\n", key)
		return err
	}
	head := key
	if res.SessionID != "" {
		head += "  (sessionId " + res.SessionID + ")"
	}
	fmt.Fprintln(e.stdout, head)
	if len(res.Messages) == 0 {
		_, err := fmt.Fprintln(e.stdout, "No messages.")
		return err
	}
	for _, m := range res.Messages {
		writeMessage(e.stdout, m.Message, msgStyle{})
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
	if res.HasMore {
		fmt.Fprintf(e.stdout, "(older messages: --before %s)\n", res.NextBeforeMessageID)
	}
	return nil
}

func sessionsPatchCommand() *command {
	return &command{
		name:    "patch",
		args:    "KEY",
		summary: "change a session's settings (creates it when missing)",
		help: "Each setting has a --clear-… flag that removes it, so the session inherits it again (sessions.patch\n" +
			"{field: null}); --send-policy inherit does the same. An empty or blank value (--model \"\") is a usage\n" +
			"error (exit 2) naming the flag, never a clear: OpenClaw's sessions.patch refuses \"\" too, so\n" +
			"clearing is always explicit. A value sessions.patch refuses (an unknown model or level) exits 1.",
		example: []string{
			"switchboard sessions patch agent:main:research --label research",
			"switchboard sessions patch main --send-policy deny",
			"switchboard sessions patch main --model openai/o4-mini --thinking low",
			"switchboard sessions patch main --clear-model --clear-send-policy",
			"switchboard sessions patch main --verbose-level full",
		},
		define: func(e *env, fs *flag.FlagSet) func([]string) error {
			var label, policy, model, thinking, verbose strFlag
			fs.Var(&policy, "send-policy", "`POLICY`: allow, deny or inherit (inherit clears it: the config decides)")
			clearPolicy := fs.Bool("clear-send-policy", false, "remove the session's send policy (sessions.patch {sendPolicy: null})")
			fs.Var(&label, "label", "the session's `LABEL` (unique per agent; not empty: use --clear-label)")
			clearLabel := fs.Bool("clear-label", false, "remove the session's label (sessions.patch {label: null})")
			fs.Var(&model, "model", "model `REF` for this session's runs (provider/model; not empty: use --clear-model)")
			clearModel := fs.Bool("clear-model", false, "remove the session's model override (sessions.patch {model: null})")
			fs.Var(&thinking, "thinking", "thinking `LEVEL`: off, minimal, low, medium or high")
			clearThinking := fs.Bool("clear-thinking", false, "remove the session's thinking level (sessions.patch {thinkingLevel: null})")
			// Not --verbose: that is the global flag for the CLI's own logs.
			fs.Var(&verbose, "verbose-level", "verbose `LEVEL` of the session's runs: "+strings.Join(api.VerboseLevels, ", "))
			clearVerbose := fs.Bool("clear-verbose-level", false, "remove the session's verbose level (sessions.patch {verboseLevel: null})")
			return func(pos []string) error {
				if err := e.wantArgs(pos, 1, 1, "KEY"); err != nil {
					return err
				}
				// An explicitly empty value is refused here, naming the
				// flag: sessions.patch would refuse it too ("" is never
				// "clear"), and the --clear-… flag is what was meant.
				for _, f := range []struct {
					name  string
					value *strFlag
				}{{"label", &label}, {"send-policy", &policy}, {"model", &model}, {"thinking", &thinking}, {"verbose-level", &verbose}} {
					if f.value.set && strings.TrimSpace(f.value.v) == "" {
						return e.usagef("--%s: empty value %q (to remove the setting, use --clear-%s)", f.name, f.value.v, f.name)
					}
				}
				if policy.set {
					switch v := strings.ToLower(strings.TrimSpace(policy.v)); v {
					case "inherit":
						if *clearPolicy {
							return e.usagef("--send-policy and --clear-send-policy cannot be combined")
						}
						policy.set, *clearPolicy = false, true
					case "allow", "deny":
						policy.v = v
					default:
						return e.usagef("--send-policy must be allow, deny or inherit (got %q)", policy.v)
					}
				}
				p := api.PatchRequest{Key: pos[0]}
				for _, f := range []struct {
					name  string
					value *strFlag
					clear bool
					field *api.Nullable
				}{
					{"label", &label, *clearLabel, &p.Label},
					{"send-policy", &policy, *clearPolicy, &p.SendPolicy},
					{"model", &model, *clearModel, &p.Model},
					{"thinking", &thinking, *clearThinking, &p.ThinkingLevel},
					{"verbose-level", &verbose, *clearVerbose, &p.VerboseLevel},
				} {
					switch {
					case f.clear && f.value.set:
						return e.usagef("--%s and --clear-%s cannot be combined", f.name, f.name)
					case f.clear:
						*f.field = api.SetNull()
					case f.value.set:
						*f.field = api.SetValue(f.value.v)
					}
				}
				if p.Empty() {
					return e.usagef("nothing to change: give --send-policy, --label, --model, --thinking or --verbose-level, or a --clear-… flag")
				}
				return e.withService(writes, func(svc *service) error {
					s, err := svc.Patch(e.ctx, api.Operator(), p)
					if err != nil {
						return err
					}
					if e.json {
						return printJSON(e.stdout, s)
					}
					_, err = fmt.Fprintf(e.stdout, "patched %s: label=%s sendPolicy=%s model=%s thinking=%s verbose=%s\n", s.Key,
						orDash(s.Label), orDefault(s.SendPolicy, "inherit"), orDefault(s.ModelOverride, "(agent default)"), orDash(s.ThinkingLevel), orDash(s.VerboseLevel))
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
				return e.withService(writes, func(svc *service) error {
					s, err := svc.Reset(e.ctx, api.Operator(), api.ResetRequest{Key: pos[0]})
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
				return e.withService(writes, func(s *service) error {
					res, err := s.Delete(e.ctx, api.Operator(), api.DeleteRequest{Key: pos[0]})
					if err != nil {
						return err
					}
					key := s.canonical(res.Key, "")
					if e.json {
						return printJSON(e.stdout, map[string]any{"ok": true, "key": key, "deleted": res.Deleted})
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
