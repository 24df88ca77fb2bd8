package cli

import (
	"flag"
	"fmt"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/loadbench"
)

// Bounds of the load benchmarks' own knobs (not API parameters).
var (
	benchSessions    = api.Limit{Name: "sessions", Min: 1, Max: 10_000_000}
	benchSeconds     = api.Limit{Name: "seconds", Min: 1, Max: 86_400}
	benchConcurrency = api.Limit{Name: "concurrency", Min: 1, Max: 100_000}
)

func benchChatCommand() *command {
	return &command{
		name:    "chat",
		summary: "chat turns per second and their latency, in-process, script model",
		help: "Opens a fresh temporary state dir with the offline `script` model, makes one unmeasured turn in\n" +
			"each of --sessions sessions (which creates them), then runs chat turns (chat, then wait for the\n" +
			"run) from --concurrency callers spread over the sessions for --seconds, and reports turns per\n" +
			"second and per-turn latency (p50/p95/p99, milliseconds). A progress line shows on a terminal.",
		example: []string{"switchboard bench chat --sessions 1000 --seconds 10 --out chat.json"},
		define: func(e *env, fs *flag.FlagSet) func([]string) error {
			out := fs.String("out", "", "also write the JSON report to `FILE`")
			var sessions, seconds, conc intFlag
			fs.Var(&sessions, "sessions", "spread the turns over `N` sessions (default 1000)")
			fs.Var(&seconds, "seconds", "measure for `S` seconds (default 10)")
			fs.Var(&conc, "concurrency", "`N` callers in flight (default 64, max 100000)")
			return func(pos []string) error {
				if err := e.wantArgs(pos, 0, 0); err != nil {
					return err
				}
				n, err := e.limited("sessions", &sessions, benchSessions, 1000)
				if err != nil {
					return err
				}
				s, err := e.limited("seconds", &seconds, benchSeconds, 10)
				if err != nil {
					return err
				}
				c, err := e.limited("concurrency", &conc, benchConcurrency, 64)
				if err != nil {
					return err
				}
				stopProfile, err := startCPUProfile(e.getenv)
				if err != nil {
					return err
				}
				rep, err := loadbench.RunChat(e.ctx, loadbench.ChatOptions{Sessions: n, Duration: time.Duration(s) * time.Second,
					Concurrency: c, Progress: e.progress()})
				if perr := stopProfile(); err == nil {
					err = perr
				}
				if err != nil {
					return err
				}
				return e.benchResult(*out, rep, func(t *table) {
					t.row("chat turns", fmt.Sprint(rep.Turns), fmt.Sprintf("%.0f", rep.TurnsPerSecond), fmt.Sprint(rep.Errors),
						ms(rep.LatencyMs.P50), ms(rep.LatencyMs.P95), ms(rep.LatencyMs.P99), ms(rep.LatencyMs.Max))
				}, fmt.Sprintf("%d sessions, %d callers, %.1f s on %d CPUs", rep.Sessions, rep.Concurrency, rep.Seconds, rep.Machine.CPUs))
			}
		},
	}
}

func ms(v float64) string { return fmt.Sprintf("%.2f", v) }

// benchResult writes rep to out (when given) and prints it: as JSON with
// --json, else as a one-row table and a line saying what was measured.
func (e *env) benchResult(out string, rep any, row func(*table), what string) error {
	if out != "" {
		if err := writeJSONFile(out, rep); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
	}
	if e.json {
		return printJSON(e.stdout, rep)
	}
	t := newTable(e.stdout, "OPERATION", "N", "PER SECOND", "ERRORS", "P50 ms", "P95 ms", "P99 ms", "MAX ms")
	row(t)
	if err := t.flush(); err != nil {
		return err
	}
	if out != "" {
		what += "; report written to " + out
	}
	_, err := fmt.Fprintln(e.stdout, what)
	return err
}
