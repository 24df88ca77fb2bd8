package cli

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/switchboard-go/switchboard/internal/openclawimport"
)

func exportCommand() *command {
	return &command{
		name:    "export",
		summary: "export state for other tools",
		subs: []*command{{
			name:    "openclaw",
			summary: "write this state dir's sessions as an OpenClaw state dir",
			help: "Writes every session (archived ones too) with its current transcript into a new OpenClaw state\n" +
				"directory that OpenClaw opens as its own. --layout sqlite (the default) writes today's layout,\n" +
				"agents/<agentId>/agent/openclaw-agent.sqlite (schema 23, OpenClaw 2026.9.6); --layout json writes\n" +
				"the older agents/<agentId>/sessions/sessions.json and <sessionId>.jsonl files, which OpenClaw 2026.7\n" +
				"and later migrate on start. The target must not exist or be empty; the state is written beside it\n" +
				"and moved into place at the end, so a failed export leaves nothing behind. What is not kept:\n" +
				"docs/openclaw-import.md. The gateway must not be running on this state dir.",
			example: []string{
				"switchboard export openclaw --to ~/openclaw-state",
				"switchboard export openclaw --to ./oc --layout json --json",
			},
			define: func(e *env, fs *flag.FlagSet) func([]string) error {
				to := fs.String("to", "", "write the OpenClaw state into `DIR` (must not exist or be empty)")
				layout := fs.String("layout", openclawimport.LayoutSQLite, "`LAYOUT` to write: "+strings.Join(openclawimport.Layouts, " or ")+" (default sqlite)")
				return func(pos []string) error {
					if err := e.wantArgs(pos, 0, 0, ""); err != nil {
						return err
					}
					if *to == "" {
						return e.usagef("--to is required")
					}
					if !slices.Contains(openclawimport.Layouts, *layout) {
						return e.usagef("--layout %q: want %s", *layout, strings.Join(openclawimport.Layouts, " or "))
					}
					return runExport(e, *to, *layout)
				}
			},
		}},
	}
}

func runExport(e *env, to, layout string) error {
	dir, _, err := e.paths()
	if err != nil {
		return err
	}
	if err := requireNoGateway(dir, "export", "exporting"); err != nil {
		return err
	}
	b, err := e.openInProcess("cli export")
	if err != nil {
		return err
	}
	opts := openclawimport.ExportOptions{Layout: layout}
	if p := e.progress(); p != nil {
		bar := &progressBar{w: p, label: "exporting sessions"}
		opts.Progress = bar.update
		defer bar.done()
	}
	sum, xerr := openclawimport.Export(e.ctx, b.app.Store, to, opts)
	if err := b.Close(e.ctx); err != nil {
		xerr = errors.Join(xerr, err)
	}
	if xerr != nil {
		return fmt.Errorf("export to %s: %w", to, xerr)
	}
	if e.json {
		return printJSON(e.stdout, sum)
	}
	_, err = fmt.Fprintf(e.stdout, "exported %d sessions and %d messages of %d agents to %s (%s layout)\n", sum.Sessions, sum.Messages, sum.Agents, to, sum.Layout)
	return err
}
