package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/switchboard-go/switchboard/internal/app"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/openclawimport"
	"github.com/switchboard-go/switchboard/internal/sessionkey"
	"github.com/switchboard-go/switchboard/internal/transcript"
)

func importCommand() *command {
	return &command{
		name:    "import",
		summary: "import state from other tools",
		subs: []*command{{
			name:    "openclaw",
			args:    "DIR",
			summary: "import an OpenClaw state dir (agent databases, or sessions.json + JSONL transcripts)",
			help: "Reads DIR/agents/<agentId>/agent/openclaw-agent.sqlite (OpenClaw 2026.7 and later, opened\n" +
				"read-only; schema up to 23, OpenClaw 2026.9.6) or, for agents without one,\n" +
				"DIR/agents/<agentId>/sessions/sessions.json and the transcripts next to it into this state dir's\n" +
				"store (and its JSONL mirror). A database that is locked, corrupt or from a newer OpenClaw, or a\n" +
				"garbled sessions.json, is refused before anything is written. Running it again imports only\n" +
				"what changed. The gateway must not be running on this state dir, nor OpenClaw on DIR.",
			example: []string{
				"switchboard import openclaw ~/.openclaw",
				"switchboard import openclaw ~/.openclaw --state-dir ./sb --json",
			},
			define: func(e *env, fs *flag.FlagSet) func([]string) error {
				return func(pos []string) error {
					if err := e.wantArgs(pos, 1, 1, "DIR"); err != nil {
						return err
					}
					return runImport(e, pos[0])
				}
			},
		}},
	}
}

// importOutput is import's --json payload.
type importOutput struct {
	Agents          int            `json:"agents"`
	Sessions        int            `json:"sessions"`
	SessionsSkipped int            `json:"sessionsSkipped"`
	Messages        int            `json:"messages"`
	LinesSkipped    int            `json:"linesSkipped"`
	Skipped         map[string]int `json:"skipped"`
	Warnings        []string       `json:"warnings"`
}

func runImport(e *env, src string) error {
	if st, err := os.Stat(src); errors.Is(err, fs.ErrNotExist) {
		return domain.Invalid("import: OpenClaw state dir %s does not exist", src)
	} else if err != nil {
		return inputFile("import: DIR", src, err)
	} else if !st.IsDir() {
		return domain.Invalid("import: %s is not a directory", src)
	}
	dir, _, err := e.paths()
	if err != nil {
		return err
	}
	if err := requireNoGateway(dir, "import", "importing"); err != nil {
		return err
	}
	b, err := e.openInProcess("cli import")
	if err != nil {
		return err
	}
	restoreGC := relaxGCForImport(e.getenv)
	sum, ierr := importInto(e.ctx, b.app.Store, dir, b.app.Config, src, e.progress())
	restoreGC()
	if err := b.Close(e.ctx); err != nil {
		ierr = errors.Join(ierr, err)
	}
	if ierr != nil {
		return fmt.Errorf("import %s: %w", src, ierr)
	}
	if e.json {
		out := importOutput{Agents: sum.Agents, Sessions: sum.Sessions, SessionsSkipped: sum.SessionsSkipped, Messages: sum.Messages,
			LinesSkipped: sum.LinesSkipped, Skipped: sum.Skipped, Warnings: sum.Warnings}
		if out.Warnings == nil {
			out.Warnings = []string{}
		}
		return printJSON(e.stdout, out)
	}
	_, err = io.WriteString(e.stdout, sum.String())
	return err
}

// importInto imports src into st, mirroring transcripts under stateDir,
// with keys canonicalized as cfg says; progress (when not nil) shows a bar.
func importInto(ctx context.Context, st domain.Store, stateDir string, cfg *config.Config, src string, progress io.Writer) (openclawimport.Summary, error) {
	keys := sessionkey.Resolver{MainKey: cfg.MainKey(), DefaultAgentID: cfg.DefaultAgentID(), GlobalScope: cfg.Session.Scope == "global"}
	opts := openclawimport.Options{
		Canonical: keys.Canonical,
		Kind:      keys.Kind,
	}
	if cfg.Transcripts.MirrorOn() {
		opts.Mirror = transcript.New(app.MirrorDir(cfg, stateDir), time.Now)
	}
	if progress != nil {
		bar := &progressBar{w: progress, label: "importing sessions"}
		opts.Progress = bar.update
		defer bar.done()
	}
	return openclawimport.Import(ctx, st, src, opts)
}

// progressBar draws a one-line bar on a terminal.
type progressBar struct {
	w     io.Writer
	label string
	drawn bool
}

func (p *progressBar) update(done, total int) {
	const width = 30
	filled := width
	if total > 0 {
		filled = done * width / total
	}
	fmt.Fprintf(p.w, "\r%s [%s%s] %d/%d", p.label, strings.Repeat("█", filled), strings.Repeat("·", width-filled), done, total)
	p.drawn = true
}

func (p *progressBar) done() {
	if p.drawn {
		fmt.Fprintln(p.w)
	}
}
