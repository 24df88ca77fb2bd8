package a2a

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/engine"
	"github.com/switchboard-go/switchboard/internal/model"
	"github.com/switchboard-go/switchboard/internal/store/sqlite"
	"github.com/switchboard-go/switchboard/internal/transcript"
)

// BenchmarkSessionsSendToRemoteSwitchboard measures a sessions_send from
// one engine to an agent of another switchboard over A2A (loopback HTTP,
// the script model on both sides): the sender's run, the SendMessage
// round trip, the remote's run, and the reply back. It reports p50 and
// p99 per send (docs/benchmarks.md).
func BenchmarkSessionsSendToRemoteSwitchboard(b *testing.B) {
	h := newHarness(b)
	const token = "bench-token"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "Bearer "+token {
			r.Header.Set("X-Test-Principal", "operator")
		}
		h.a2a.ServeHTTP(w, r)
	}))
	b.Cleanup(srv.Close)

	cfg := testConfig()
	cfg.Tools.Sessions.Visibility = "all"
	cfg.Tools.AgentToAgent.Enabled = true
	cfg.A2A.SSRFPolicy.DangerouslyAllowPrivateNetwork = true
	cfg.A2A.Remotes = []config.A2ARemote{{ID: "peer", URL: srv.URL + AgentsPrefix + "main" + "/.well-known/agent-card.json", Token: token}}
	sender := openSender(b, cfg)

	ctx := context.Background()
	send := func(i int) {
		args, _ := json.Marshal(map[string]any{"sessionKey": "agent:peer:main", "message": fmt.Sprintf("hello %d", i)})
		out := sender.CallTool(ctx, api.Operator(), api.ToolSessionsSend, args)
		res, ok := out.Payload.(api.SendResult)
		if !ok || res.Status != "ok" || res.Reply != fmt.Sprintf("echo: hello %d", i) {
			b.Fatalf("send %d = %s", i, out.JSON())
		}
	}
	send(-1) // fetch and cache the card
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		send(i)
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

// openSender starts the sending engine with cfg on a fresh state dir.
func openSender(tb testing.TB, cfg *config.Config) *engine.Engine {
	tb.Helper()
	dir := tb.TempDir()
	models, err := model.NewRegistry(cfg, nil, nil)
	if err != nil {
		tb.Fatal(err)
	}
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(dir, "switchboard.db"), sqlite.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	e, err := engine.New(engine.Options{Config: cfg, Store: st, Models: models,
		Mirror: transcript.New(dir, time.Now), StateDir: dir, MaintenanceInterval: 20 * time.Millisecond})
	if err != nil {
		tb.Fatal(err)
	}
	if err := e.Start(ctx); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := e.Close(ctx); err != nil {
			tb.Errorf("close sender: %v", err)
		}
		st.Close()
	})
	return e
}
