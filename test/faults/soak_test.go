package faults

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/testkit"
)

// sample is one reading of the gateway's resources.
type sample struct {
	at         time.Duration
	rssKB      int64
	threads    int64
	fds        int64
	goroutines int64 // from /metrics when it exports go_goroutines, else -1
}

func readSample(g *gateway, at time.Duration) sample {
	s := sample{at: at, goroutines: -1}
	pid := g.Pid()
	if f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 2 {
				continue
			}
			n, _ := strconv.ParseInt(fields[1], 10, 64)
			switch fields[0] {
			case "VmRSS:":
				s.rssKB = n
			case "Threads:":
				s.threads = n
			}
		}
		f.Close()
	}
	if ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid)); err == nil {
		s.fds = int64(len(ents))
	}
	if code, body := g.call("GET", "/metrics", nil, nil); code == 200 {
		for _, line := range strings.Split(string(body), "\n") {
			if strings.HasPrefix(line, "go_goroutines ") {
				s.goroutines, _ = strconv.ParseInt(strings.TrimSpace(strings.TrimPrefix(line, "go_goroutines ")), 10, 64)
			}
		}
	}
	return s
}

// TestSoak runs mixed load for SWITCHBOARD_SOAK_MINUTES minutes, samples
// the gateway's RSS, threads, descriptors (and goroutines, when /metrics
// exports them) every 10 s into a CSV (SWITCHBOARD_SOAK_CSV, else the test's
// temp dir), and fails when one grows without bound: the mean of the last
// quarter of the samples above 1.5x the mean of the second quarter.
func TestSoak(t *testing.T) {
	minutes, _ := strconv.Atoi(os.Getenv("SWITCHBOARD_SOAK_MINUTES"))
	if minutes <= 0 {
		t.Skip("soak test: set SWITCHBOARD_SOAK_MINUTES=N to run it")
	}
	dir := t.TempDir()
	testkit.WriteConfig(t, dir, faultConfig)
	g := startGateway(t, dir, "soak")
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(minutes)*time.Minute)
	defer cancel()
	l := &load{}
	done := make(chan struct{})
	go func() { l.run(ctx, g, 4, uint64(time.Now().UnixNano())); close(done) }()
	start := time.Now()
	var samples []sample
	tick := time.NewTicker(10 * time.Second)
	defer tick.Stop()
	for ctx.Err() == nil {
		select {
		case <-tick.C:
			samples = append(samples, readSample(g, time.Since(start)))
		case <-ctx.Done():
		}
	}
	<-done
	csvPath := os.Getenv("SWITCHBOARD_SOAK_CSV")
	if csvPath == "" {
		csvPath = filepath.Join(t.TempDir(), "soak.csv")
	}
	var b strings.Builder
	b.WriteString("seconds,rss_kb,threads,fds,goroutines\n")
	for _, s := range samples {
		fmt.Fprintf(&b, "%d,%d,%d,%d,%d\n", int(s.at.Seconds()), s.rssKB, s.threads, s.fds, s.goroutines)
	}
	if err := os.WriteFile(csvPath, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d samples written to %s (%d operations)", len(samples), csvPath, l.n)
	waitIdle(t, g, 2*time.Minute)
	waitAnnounced(t, g, 3*time.Minute)
	g.stop()
	checkInvariants(t, dir, l.ack)
	if len(samples) < 8 {
		t.Logf("too few samples (%d) to judge growth; run for at least 2 minutes", len(samples))
		return
	}
	q := len(samples) / 4
	mean := func(part []sample, f func(sample) int64) float64 {
		var sum float64
		for _, s := range part {
			sum += float64(f(s))
		}
		return sum / float64(len(part))
	}
	for _, m := range []struct {
		name string
		f    func(sample) int64
	}{
		{"rss", func(s sample) int64 { return s.rssKB }},
		{"threads", func(s sample) int64 { return s.threads }},
		{"fds", func(s sample) int64 { return s.fds }},
		{"goroutines", func(s sample) int64 { return s.goroutines }},
	} {
		second, last := mean(samples[q:2*q], m.f), mean(samples[len(samples)-q:], m.f)
		if second > 0 && last > 1.5*second {
			t.Errorf("%s grows: mean %.0f in the second quarter, %.0f in the last", m.name, second, last)
		}
	}
}

// waitAnnounced waits until no announce is pending in the outbox (archive
// items are due an hour later and do not count) and logs how long the
// outbox took to catch up after the load stopped.
func waitAnnounced(t *testing.T, g *gateway, within time.Duration) {
	t.Helper()
	start := time.Now()
	for {
		var res struct {
			Items []struct {
				Kind string `json:"kind"`
			} `json:"items"`
		}
		code, body := g.call("GET", "/api/outbox?status=pending&limit=1000", nil, &res)
		pending := 0
		for _, it := range res.Items {
			if it.Kind == string(domain.OutboxAnnounce) || it.Kind == string(domain.OutboxSubagentAnnounce) {
				pending++
			}
		}
		if code == 200 && pending == 0 {
			t.Logf("outbox caught up %s after the load stopped", time.Since(start).Round(time.Millisecond))
			return
		}
		if time.Since(start) > within {
			t.Errorf("outbox: %d announces still pending %s after the load stopped (%d %s)", pending, within, code, body)
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}
