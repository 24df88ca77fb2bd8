package loadbench

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// gatewayProc is a gateway this benchmark started: the switchboard binary
// in its own process on a temporary state dir, so its RSS and goroutines
// are its own and its file descriptors do not count against the clients'.
type gatewayProc struct {
	cmd   *exec.Cmd
	dir   string
	url   string // http://127.0.0.1:port
	wsURL string
	token string
	done  chan error
}

// startGateway runs `<exe> gateway --listen 127.0.0.1:0` on a fresh state
// dir whose config puts every agent on the script model with a main lane
// of lanes, and waits for gateway.json to say where it listens.
func startGateway(ctx context.Context, exe string, lanes int) (*gatewayProc, error) {
	dir, err := os.MkdirTemp("", "switchboard-bench-gateway-")
	if err != nil {
		return nil, err
	}
	cfg := fmt.Sprintf(`{
  agents: {defaults: {model: "script"}, list: [{id: "main", name: "Main", default: true}]},
  models: {providers: {script: {}}},
  runtime: {lanes: {main: %d}},
}
`, lanes)
	cfgPath := filepath.Join(dir, "switchboard.json5")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	tok := make([]byte, 16)
	_, _ = rand.Read(tok)
	g := &gatewayProc{dir: dir, token: hex.EncodeToString(tok), done: make(chan error, 1)}
	g.cmd = exec.Command(exe, "--state-dir", dir, "--config", cfgPath, "gateway", "--listen", "127.0.0.1:0")
	g.cmd.Env = append(os.Environ(), "SWITCHBOARD_GATEWAY_TOKEN="+g.token)
	g.cmd.Stdout = io.Discard
	logf, err := os.Create(filepath.Join(dir, "gateway.log"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	g.cmd.Stderr = logf
	if err := g.cmd.Start(); err != nil {
		logf.Close()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start gateway: %w", err)
	}
	go func() { g.done <- g.cmd.Wait(); logf.Close() }()

	deadline := time.NewTimer(60 * time.Second)
	defer deadline.Stop()
	poll := time.NewTicker(50 * time.Millisecond)
	defer poll.Stop()
	for {
		select {
		case err := <-g.done:
			g.done <- err
			log, _ := os.ReadFile(filepath.Join(dir, "gateway.log"))
			g.stop()
			return nil, fmt.Errorf("gateway exited (%v): %s", err, strings.TrimSpace(string(log)))
		case <-ctx.Done():
			g.stop()
			return nil, ctx.Err()
		case <-deadline.C:
			g.stop()
			return nil, errors.New("gateway did not start within 60 s")
		case <-poll.C:
			data, err := os.ReadFile(filepath.Join(dir, "gateway.json"))
			if err != nil {
				continue
			}
			var info struct{ URL, WSURL string }
			if json.Unmarshal(data, &info) == nil && info.WSURL != "" {
				g.url, g.wsURL = info.URL, info.WSURL
				return g, nil
			}
		}
	}
}

// stop ends the gateway (SIGINT, then SIGKILL after 20 s) and removes its
// state dir.
func (g *gatewayProc) stop() {
	if g.cmd.Process != nil {
		_ = g.cmd.Process.Signal(os.Interrupt)
		select {
		case err := <-g.done:
			g.done <- err
		case <-time.After(20 * time.Second):
			_ = g.cmd.Process.Kill()
			g.done <- <-g.done
		}
	}
	os.RemoveAll(g.dir)
}

// GatewayStats are the gateway's own numbers from its /metrics.
type GatewayStats struct {
	RSSMB      float64 `json:"rssMB"`
	Goroutines int     `json:"goroutines"`
	// CPUSeconds is the gateway process's CPU time so far
	// (process_cpu_seconds_total).
	CPUSeconds float64 `json:"cpuSeconds"`
}

// scrapeMetrics reads process_resident_memory_bytes, process_cpu_seconds_total
// and go_goroutines.
func scrapeMetrics(ctx context.Context, hc *http.Client, baseURL, token string) (GatewayStats, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(baseURL, "/")+"/metrics", nil)
	if err != nil {
		return GatewayStats{}, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return GatewayStats{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return GatewayStats{}, fmt.Errorf("/metrics: %s", resp.Status)
	}
	var st GatewayStats
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		name, val, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		switch name {
		case "process_resident_memory_bytes":
			if v, err := strconv.ParseFloat(strings.TrimSpace(val), 64); err == nil {
				st.RSSMB = v / (1 << 20)
			}
		case "process_cpu_seconds_total":
			if v, err := strconv.ParseFloat(strings.TrimSpace(val), 64); err == nil {
				st.CPUSeconds = v
			}
		case "go_goroutines":
			if v, err := strconv.ParseFloat(strings.TrimSpace(val), 64); err == nil {
				st.Goroutines = int(v)
			}
		}
	}
	return st, sc.Err()
}
