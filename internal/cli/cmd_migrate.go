package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/app"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/storecopy"
)

func migrateCommand() *command {
	return &command{
		name:    "migrate",
		summary: "copy the store into another database (SQLite ⇄ PostgreSQL)",
		help: "Copies every session, transcript message, run, outbox row, usage account and usage ledger\n" +
			"entry from --from (default: the store this config uses) into --to, which must be empty: a new\n" +
			"SQLite file (sqlite:PATH) or an empty PostgreSQL database (postgres://user:pass@host/db). Ids,\n" +
			"seqs and timestamps are kept. Running it again into a target that already holds exactly this\n" +
			"copy does nothing and says so; a target holding anything else is refused. Stop the gateway\n" +
			"first: the copy reads a store nobody writes. Then point store.driver and store.url at the\n" +
			"target (docs/deployment.md). The JSONL mirror is not copied: it stays where it is\n" +
			"(transcripts.dir).",
		example: []string{
			"switchboard migrate --to postgres://switchboard@db.example.com/switchboard",
			"switchboard migrate --from postgres://db/sb --to sqlite:/srv/sb/switchboard.db",
		},
		define: func(e *env, fs *flag.FlagSet) func([]string) error {
			to := fs.String("to", "", "the target `STORE`: sqlite:PATH or postgres://… (required)")
			from := fs.String("from", "", "the source `STORE`: sqlite:PATH or postgres://… (default: the configured store)")
			var batch intFlag
			fs.Var(&batch, "batch", fmt.Sprintf("rows per transaction `N` (1..%d, default %d)", storecopy.MaxBatch, storecopy.DefaultBatch))
			return func(pos []string) error {
				if err := e.wantArgs(pos, 0, 0); err != nil {
					return err
				}
				if *to == "" {
					return e.usagef("--to is required (sqlite:PATH or postgres://…)")
				}
				dst, err := storecopy.ParseEndpoint(*to)
				if err != nil {
					return e.usagef("--to: %v", err)
				}
				if err := dst.CheckTarget(); err != nil {
					return e.usagef("--to: %v", err)
				}
				var src storecopy.Endpoint
				if *from != "" {
					if src, err = storecopy.ParseEndpoint(*from); err != nil {
						return e.usagef("--from: %v", err)
					}
				}
				n, err := e.limited("batch", &batch, migrateBatch, storecopy.DefaultBatch)
				if err != nil {
					return err
				}
				return runMigrate(e, src, dst, n)
			}
		},
	}
}

// migrateBatch bounds --batch.
var migrateBatch = api.Limit{Name: "batch", Min: 1, Max: storecopy.MaxBatch}

// migrateOutput is migrate's --json payload.
type migrateOutput struct {
	From          string  `json:"from"`
	To            string  `json:"to"`
	Sessions      int64   `json:"sessions"`
	Messages      int64   `json:"messages"`
	Runs          int64   `json:"runs"`
	Outbox        int64   `json:"outbox"`
	Accounts      int64   `json:"accounts"`
	Ledger        int64   `json:"ledger"`
	Bytes         int64   `json:"bytes"`
	Seconds       float64 `json:"seconds"`
	RowsPerSecond float64 `json:"rowsPerSecond"`
	AlreadyCopied bool    `json:"alreadyCopied"`
}

func runMigrate(e *env, src, dst storecopy.Endpoint, batch int) (err error) {
	if src.Driver == "" {
		// The configured store; its state dir's lock keeps a gateway (or
		// another command) from writing while it is read.
		dir, _, err := e.paths()
		if err != nil {
			return err
		}
		cfg, err := e.loadConfig()
		if err != nil {
			return err
		}
		if cfg.Store.Driver == config.StorePostgres {
			src = storecopy.Endpoint{Driver: "postgres", URL: cfg.Store.URL}
		} else {
			src = storecopy.Endpoint{Driver: "sqlite", Path: app.DBPath(dir)}
			lock, err := app.AcquireLock(dir, "cli migrate")
			if err != nil {
				return fmt.Errorf("migrate: %w (stop the gateway before migrating)", err)
			}
			defer lock.Release()
		}
	}
	if src.Same(dst) {
		return fmt.Errorf("migrate: --to names the source store (%s)", src)
	}
	from, err := src.Open(e.ctx, false)
	if err != nil {
		return fmt.Errorf("migrate: source: %w", err)
	}
	defer func() { err = errors.Join(err, from.Close()) }()
	to, err := dst.Open(e.ctx, true)
	if err != nil {
		// The target was named by --to: a server that does not answer is
		// unavailable, anything else the argument's fault.
		return domain.WithCode(storeOpenCode(err), fmt.Errorf("migrate: target: %w", err))
	}
	defer func() { err = errors.Join(err, to.Close()) }()

	p := newMigrateProgress(e.stderr, isTerminal(e.stderr))
	sum, err := storecopy.Copy(e.ctx, from, to, storecopy.Options{Batch: batch, Progress: p.update})
	p.done()
	if err != nil {
		return fmt.Errorf("migrate %s → %s: %w", src, dst, err)
	}
	out := migrateOutput{From: src.String(), To: dst.String(), Sessions: sum.Sessions, Messages: sum.Messages, Runs: sum.Runs,
		Outbox: sum.Outbox, Accounts: sum.Accounts, Ledger: sum.Ledger, Bytes: sum.Bytes, Seconds: sum.Duration.Seconds(), AlreadyCopied: sum.AlreadyCopied}
	if s := sum.Duration.Seconds(); s > 0 && !sum.AlreadyCopied {
		out.RowsPerSecond = float64(sum.Rows()) / s
	}
	if e.json {
		return printJSON(e.stdout, out)
	}
	if sum.AlreadyCopied {
		_, err = fmt.Fprintf(e.stdout, "%s already holds exactly this copy (%d sessions, %d messages, %d runs, %d outbox rows, %d usage accounts, %d usage ledger entries); nothing to do\n",
			out.To, out.Sessions, out.Messages, out.Runs, out.Outbox, out.Accounts, out.Ledger)
		return err
	}
	_, err = fmt.Fprintf(e.stdout, "copied %d sessions, %d messages, %d runs, %d outbox rows, %d usage accounts and %d usage ledger entries (%s) from %s to %s in %.2f s (%.0f rows/s)\n",
		out.Sessions, out.Messages, out.Runs, out.Outbox, out.Accounts, out.Ledger, byteSize(out.Bytes), out.From, out.To, out.Seconds, out.RowsPerSecond)
	return err
}

// migrateProgress shows the copy's progress on stderr: a bar on a
// terminal, else a plain line at every tenth of the rows.
type migrateProgress struct {
	w       io.Writer
	bar     *progressBar
	started time.Time
	shown   int64 // the last tenth printed (plain lines)
}

func newMigrateProgress(w io.Writer, terminal bool) *migrateProgress {
	p := &migrateProgress{w: w, started: time.Now(), shown: -1}
	if terminal {
		p.bar = &progressBar{w: w, label: "copying rows"}
	}
	return p
}

func (p *migrateProgress) update(done, total int64) {
	if p.bar != nil {
		p.bar.update(int(done), int(total))
		return
	}
	tenth, percent := int64(10), int64(100)
	if total > 0 {
		tenth, percent = done*10/total, done*100/total
	}
	if tenth == p.shown {
		return
	}
	p.shown = tenth
	// The percentage is the rows done, not the tenth that triggered the
	// line (1 of 4 rows is 25 %, not 20 %).
	fmt.Fprintf(p.w, "migrate: %d/%d rows (%d%%) after %.1f s\n", done, total, percent, time.Since(p.started).Seconds())
}

func (p *migrateProgress) done() {
	if p.bar != nil {
		p.bar.done()
	}
}

// byteSize formats n bytes for people.
func byteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
