package cli

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/loadbench"
)

var benchClients = api.Limit{Name: "clients", Min: 1, Max: 100_000}

func benchGatewayCommand() *command {
	return &command{
		name:    "gateway",
		summary: "WebSocket clients each driving its own session through a gateway",
		help: "Starts a gateway (this binary, its own process, on a temporary state dir with the offline `script`\n" +
			"model and a random token) unless --url names a running one, connects --clients WebSocket clients\n" +
			"as operators, and has each drive its own session with `agent` + `agent.wait` at --rate round trips\n" +
			"per second (0: as fast as it can) for --seconds. --subscribe own (default) subscribes each client\n" +
			"to its own session after its first round trip; all leaves them unsubscribed (an operator then gets\n" +
			"every event). --idle only holds the connections and reports how late the gateway's ticks arrive.\n" +
			"Reports round trips per second, latency (p50/p95/p99 ms; paced, from when each round trip was\n" +
			"due), errors, CPU per round trip (the gateway's and the clients'), and the gateway's RSS and\n" +
			"goroutines from its /metrics. $SWITCHBOARD_CPUPROFILE=FILE makes the gateway write a CPU profile.\n" +
			"With --url, the token is $SWITCHBOARD_GATEWAY_TOKEN; --pid then names the gateway's process, whose RSS and CPU\n" +
			"are read from /proc (for a gateway without switchboard's /metrics, such as OpenClaw's: the clients connect\n" +
			"with OpenClaw's client id gateway-client, mode backend). --list makes each round trip one sessions.list\n" +
			"call (limit 100) instead of agent + agent.wait.",
		example: []string{
			"switchboard bench gateway --clients 1000 --rate 2 --seconds 30 --out gw.json",
			"switchboard bench gateway --clients 200 --rate 0 --seconds 30 --subscribe all",
			"switchboard bench gateway --clients 10000 --idle --seconds 60",
			"switchboard bench gateway --url http://127.0.0.1:18789 --pid 4242 --clients 50 --rate 0 --list",
		},
		define: func(e *env, fs *flag.FlagSet) func([]string) error {
			out := fs.String("out", "", "also write the JSON report to `FILE`")
			url := fs.String("url", "", "use the running gateway at `URL` (http://host:port) instead of starting one")
			sub := fs.String("subscribe", "own", "`MODE`: own (each client subscribes to its own session; the default) or all (no subscription: an operator gets every event)")
			idle := fs.Bool("idle", false, "hold the connections without requests; report tick delays")
			list := fs.Bool("list", false, "round trips are sessions.list calls (limit 100)")
			var pid intFlag
			fs.Var(&pid, "pid", "with --url: the gateway's process `PID`; its RSS and CPU are read from /proc")
			rate := fs.String("rate", "2", "`N` round trips per second per client (default 2; 0 for unpaced, max 10000)")
			var clients, seconds intFlag
			fs.Var(&clients, "clients", "`N` WebSocket clients (default 100, max 100000)")
			fs.Var(&seconds, "seconds", "measure for `S` seconds (default 10)")
			return func(pos []string) error {
				if err := e.wantArgs(pos, 0, 0); err != nil {
					return err
				}
				n, err := e.limited("clients", &clients, benchClients, 100)
				if err != nil {
					return err
				}
				s, err := e.limited("seconds", &seconds, benchSeconds, 10)
				if err != nil {
					return err
				}
				r, err := strconv.ParseFloat(*rate, 64)
				if err != nil || r < 0 || r > 10_000 {
					return e.usagef("--rate must be a number from 0 to 10000 (got %q)", *rate)
				}
				exe, err := os.Executable()
				if err != nil {
					return fmt.Errorf("bench gateway: %w", err)
				}
				rep, err := loadbench.RunGateway(e.ctx, loadbench.GatewayOptions{Clients: n, Rate: r, Duration: time.Duration(s) * time.Second,
					Subscribe: *sub, Idle: *idle, List: *list, PID: pid.v, URL: *url, Token: e.getenv(tokenEnv), Exe: exe, Progress: e.progress()})
				if err != nil {
					return err
				}
				what := fmt.Sprintf("%d of %d clients connected (connect p50 %s ms); gateway RSS %.0f MiB (peak %.0f), %d goroutines; %.1f s on %d CPUs",
					rep.Connected, rep.Clients, ms(rep.ConnectMs.P50), rep.Gateway.RSSMB, rep.GatewayPeakRSS, rep.Gateway.Goroutines, rep.Seconds, rep.Machine.CPUs)
				if !rep.Idle && rep.RoundTrips > 0 {
					what += fmt.Sprintf("\nper round trip: gateway CPU %.3f ms, clients' CPU %.3f ms, %.1f frames; %d paced starts skipped (client still busy)",
						rep.GatewayCPUMsPerRoundTrip, rep.ClientCPUMsPerRoundTrip, rep.FramesPerRoundTrip, rep.SkippedStarts)
				}
				if rep.FirstError != "" {
					what += "\nfirst error: " + rep.FirstError
				}
				return e.benchResult(*out, rep, func(t *table) {
					if rep.Idle {
						d := rep.TickDelayMs
						t.row("tick delay (idle)", fmt.Sprint(d.N), "-", fmt.Sprint(rep.Errors), ms(d.P50), ms(d.P95), ms(d.P99), ms(d.Max))
						return
					}
					d := rep.LatencyMs
					op := "agent + agent.wait"
					if rep.List {
						op = "sessions.list"
					}
					t.row(op, fmt.Sprint(rep.RoundTrips), fmt.Sprintf("%.0f", rep.PerSecond), fmt.Sprint(rep.Errors),
						ms(d.P50), ms(d.P95), ms(d.P99), ms(d.Max))
				}, what)
			}
		},
	}
}
