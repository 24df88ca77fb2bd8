package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
)

// command is one command or command group of the CLI.
type command struct {
	name    string
	args    string // synopsis after the name: "KEY MESSAGE"
	summary string
	help    string // what it does, in a few lines
	example []string
	subs    []*command
	// define registers the command's flags on fs and returns the function
	// that runs it with the positional arguments. It must do nothing else:
	// help output calls it to list the flags.
	define func(e *env, fs *flag.FlagSet) func(pos []string) error
}

// commands is the command tree of switchboard.
func commands() *command {
	return &command{
		name: "switchboard",
		help: "switchboard hosts LLM agent sessions and gives agents session tools (sessions_list, sessions_history,\n" +
			"sessions_search, sessions_send, sessions_spawn, sessions_yield, session_status, agents_list), over MCP and\n" +
			"A2A too. Commands talk to the running gateway of the state directory when there is one, and\n" +
			"otherwise run the engine in-process.",
		subs: []*command{
			chatCommand(), sendCommand(), spawnCommand(), sessionsCommand(), agentsCommand(), runsCommand(),
			outboxCommand(), loopsCommand(), approvalsCommand(), auditCommand(), channelsCommand(), pairingCommand(), gatewayCommand(), mcpCommand(), demoCommand(), configCommand(),
			importCommand(), exportCommand(),
			benchCommand(), migrateCommand(), usageCommand(), versionCommand(),
		},
	}
}

func (c *command) sub(name string) *command {
	for _, s := range c.subs {
		if s.name == name {
			return s
		}
	}
	return nil
}

func (c *command) fullName(path []*command) string {
	names := []string{"switchboard"}
	for _, p := range path {
		names = append(names, p.name)
	}
	return strings.Join(names, " ")
}

func subNames(c *command) string {
	names := make([]string, len(c.subs))
	for i, s := range c.subs {
		names[i] = s.name
	}
	return strings.Join(names, ", ")
}

// suggest returns ` (did you mean "x"?)` for a near miss.
func suggest(c *command, name string) string {
	best, bestD := "", 3
	for _, s := range c.subs {
		if d := editDistance(name, s.name); d < bestD {
			best, bestD = s.name, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// run parses the command's flags and runs it.
func (c *command) run(e *env, args []string) error {
	fs := e.flagSet(c.name)
	runFn := c.define(e, fs)
	pos, err := parseFlags(fs, args, false)
	if errors.Is(err, errHelp) {
		_, err := io.WriteString(e.stdout, usageOf(c, e.path))
		return err
	}
	if err != nil {
		return usageErr(c.fullName(e.path)+": "+err.Error(), shortUsage(c, e.path))
	}
	return runFn(pos)
}

// shortUsage is the usage shown after a usage error: the synopsis and
// where to read more.
func shortUsage(c *command, path []*command) string {
	if len(path) == 0 {
		return "Usage: switchboard [global flags] COMMAND [arguments] [flags]\nCommands: " + subNames(c) +
			"\nRun `switchboard --help` for details.\n"
	}
	name := c.fullName(path)
	if len(c.subs) > 0 {
		return fmt.Sprintf("Usage: %s SUBCOMMAND (%s)\nRun `%s --help` for details.\n", name, subNames(c), name)
	}
	return fmt.Sprintf("Usage: %s %s\nRun `%s --help` for the flags and examples.\n", name, strings.TrimSpace(c.args+" [flags]"), name)
}

// usageOf renders the help of c (path is c's place in the tree; nil for
// the root).
func usageOf(c *command, path []*command) string {
	var b strings.Builder
	if len(path) == 0 {
		b.WriteString(c.help + "\n\nUsage:\n  switchboard [global flags] COMMAND [arguments] [flags]\n\nCommands:\n")
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, s := range c.subs {
			if len(s.subs) > 0 {
				for _, ss := range s.subs {
					fmt.Fprintf(tw, "  %s %s %s\t%s\n", s.name, ss.name, ss.args, ss.summary)
				}
				continue
			}
			fmt.Fprintf(tw, "  %s %s\t%s\n", s.name, s.args, s.summary)
		}
		tw.Flush()
		b.WriteString("\nGlobal flags (before or after the command):\n")
		writeFlags(&b, globalFlagSet(), true)
		b.WriteString("\nFlags may come before or after arguments; \"--\" ends flags.\n" +
			"Run `switchboard help COMMAND` or `switchboard COMMAND --help` for details and examples.\n")
		return b.String()
	}
	name := c.fullName(path)
	if len(c.subs) > 0 {
		fmt.Fprintf(&b, "%s — %s\n\nUsage:\n", name, c.summary)
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, s := range c.subs {
			fmt.Fprintf(tw, "  %s %s %s\t%s\n", name, s.name, s.args, s.summary)
		}
		tw.Flush()
		if c.help != "" {
			b.WriteString("\n" + c.help + "\n")
		}
		fmt.Fprintf(&b, "\nRun `%s SUBCOMMAND --help` for details.\n", name)
		return b.String()
	}
	fmt.Fprintf(&b, "%s — %s\n\nUsage:\n  %s %s\n", name, c.summary, name, strings.TrimSpace(c.args+" [flags]"))
	if c.help != "" {
		b.WriteString("\n" + c.help + "\n")
	}
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	c.define(&env{}, fs)
	if hasFlags(fs) {
		b.WriteString("\nFlags:\n")
		writeFlags(&b, fs, false)
	}
	if len(c.example) > 0 {
		b.WriteString("\nExamples:\n")
		for _, ex := range c.example {
			b.WriteString("  " + ex + "\n")
		}
	}
	b.WriteString("\nGlobal flags: --state-dir DIR, --config FILE, --json, --verbose, --log-format text|json, --log-level LEVEL, --detach (see `switchboard --help`).\n")
	return b.String()
}

func globalFlagSet() *flag.FlagSet {
	return (&env{}).flagSet("global")
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(f *flag.Flag) { n++ })
	return n > 0
}

// writeFlags lists fs's flags; globals are listed only when wanted.
func writeFlags(w io.Writer, fs *flag.FlagSet, globals bool) {
	var flags []*flag.Flag
	fs.VisitAll(func(f *flag.Flag) {
		if isGlobalFlag(f.Name) == globals {
			flags = append(flags, f)
		}
	})
	sort.Slice(flags, func(i, j int) bool { return flags[i].Name < flags[j].Name })
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, f := range flags {
		arg := ""
		if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); !ok || !bf.IsBoolFlag() {
			arg, _ = flag.UnquoteUsage(f)
			if arg == "" || arg == "value" {
				arg = "VALUE"
			}
			arg = " " + strings.ToUpper(arg)
		}
		usage := f.Usage
		if _, u := flag.UnquoteUsage(f); u != "" {
			usage = u
		}
		fmt.Fprintf(tw, "  --%s%s\t%s\n", f.Name, arg, usage)
	}
	tw.Flush()
}
