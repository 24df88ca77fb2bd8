package loadbench_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/cli"
	"github.com/switchboard-go/switchboard/internal/loadbench"
)

// asCLI makes this test binary the switchboard binary when re-executed by
// bench gateway (which starts its gateway as a child process).
const asCLI = "SWITCHBOARD_LOADBENCH_TEST_AS_CLI"

func TestMain(m *testing.M) {
	if os.Getenv(asCLI) == "1" {
		os.Exit(cli.Process(os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func TestRunChat(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rep, err := loadbench.RunChat(ctx, loadbench.ChatOptions{Sessions: 20, Duration: time.Second, Concurrency: 4})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Errors != 0 || rep.Turns == 0 || rep.LatencyMs.N != int(rep.Turns) {
		t.Fatalf("turns %d, latencies %d, errors %d (%s)", rep.Turns, rep.LatencyMs.N, rep.Errors, rep.FirstError)
	}
	l := rep.LatencyMs
	if !(l.P50 <= l.P95 && l.P95 <= l.P99 && l.P99 <= l.Max) || rep.TurnsPerSecond <= 0 {
		t.Fatalf("percentiles out of order or no rate: %+v, %.1f/s", l, rep.TurnsPerSecond)
	}
}

func TestRunChatRefusesZero(t *testing.T) {
	if _, err := loadbench.RunChat(context.Background(), loadbench.ChatOptions{Sessions: 0, Duration: time.Second, Concurrency: 1}); err == nil {
		t.Fatal("zero sessions accepted")
	}
}

// gatewayOpts starts the gateway as this test binary re-executed as the CLI.
func gatewayOpts(t *testing.T) loadbench.GatewayOptions {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(asCLI, "1")
	return loadbench.GatewayOptions{Exe: exe, Duration: 2 * time.Second}
}

func TestRunGatewayPaced(t *testing.T) {
	opts := gatewayOpts(t)
	opts.Clients, opts.Rate = 5, 5
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	rep, err := loadbench.RunGateway(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Errors != 0 || rep.Connected != 5 || !rep.Started {
		t.Fatalf("connected %d, errors %d (%s)", rep.Connected, rep.Errors, rep.FirstError)
	}
	// 5 clients × 5/s × 2 s = 50 at most (one more each at the edge).
	if rep.RoundTrips == 0 || rep.RoundTrips > 55 {
		t.Fatalf("round trips %d: want 1..55 at 5 clients × 5/s × 2 s", rep.RoundTrips)
	}
	if rep.Gateway.RSSMB <= 0 || rep.Gateway.Goroutines <= 0 || rep.Gateway.CPUSeconds <= 0 {
		t.Fatalf("gateway stats not read from /metrics: %+v", rep.Gateway)
	}
	// A round trip is at least the ack, the final res and the wait's res.
	// (The gateway's CPU per round trip is not checked: /proc counts it in
	// 10 ms ticks, and 50 round trips may take fewer.)
	if rep.FramesPerRoundTrip < 3 || rep.GatewayCPUMsPerRoundTrip < 0 || rep.ClientCPUMsPerRoundTrip <= 0 {
		t.Fatalf("per round trip: %.1f frames, gateway CPU %.3f ms, clients' CPU %.3f ms",
			rep.FramesPerRoundTrip, rep.GatewayCPUMsPerRoundTrip, rep.ClientCPUMsPerRoundTrip)
	}
}

func TestRunGatewayIdleSeesNoRequests(t *testing.T) {
	opts := gatewayOpts(t)
	opts.Clients, opts.Idle = 3, true
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	rep, err := loadbench.RunGateway(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Errors != 0 || rep.Connected != 3 || rep.RoundTrips != 0 {
		t.Fatalf("connected %d, round trips %d, errors %d (%s)", rep.Connected, rep.RoundTrips, rep.Errors, rep.FirstError)
	}
}

func TestRunGatewayRefusesBadSubscribe(t *testing.T) {
	_, err := loadbench.RunGateway(context.Background(), loadbench.GatewayOptions{Clients: 1, Duration: time.Second, Subscribe: "some"})
	if err == nil {
		t.Fatal("--subscribe some accepted")
	}
}
