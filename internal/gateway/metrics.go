package gateway

import (
	"context"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// metrics is the Server's Prometheus registry (never the global one).
type metrics struct {
	s             *Server
	reg           *prometheus.Registry
	wsConnections prometheus.Gauge
	wsTotal       prometheus.Counter
	requests      *prometheus.CounterVec
	rateLimited   prometheus.Counter
	runsFinished  *prometheus.CounterVec
	storeLatency  *prometheus.HistogramVec
}

func newMetrics(s *Server) *metrics {
	m := &metrics{
		s:   s,
		reg: prometheus.NewRegistry(),
		wsConnections: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "switchboard_ws_connections", Help: "Open WebSocket gateway connections."}),
		wsTotal: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "switchboard_ws_connections_total", Help: "WebSocket gateway connections accepted since start."}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "switchboard_gateway_requests_total", Help: "Gateway protocol requests by method and result code."},
			[]string{"method", "code"}),
		rateLimited: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "switchboard_rate_limited_total", Help: "Requests refused by a token's rate limit (gateway.limits.rateLimit)."}),
		runsFinished: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "switchboard_runs_finished_total", Help: "Runs that ended since the gateway started, by final status."},
			[]string{"status"}),
		storeLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "switchboard_store_latency_seconds", Help: "Latency of engine reads made by the gateway.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5}},
			[]string{"op"}),
	}
	// The Go and process collectors (go_goroutines, process_resident_memory_bytes…)
	// let operators and the soak test watch for leaks.
	m.reg.MustRegister(m.wsConnections, m.wsTotal, m.requests, m.rateLimited, m.runsFinished, m.storeLatency, newStateCollector(m), newChannelCollector(s),
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// handler serves the Prometheus text exposition.
func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// request counts one answered gateway request. Unknown method names are
// folded into one label value so clients cannot grow the series.
func (m *metrics) request(method, code string) {
	if _, ok := m.s.methods[method]; !ok {
		method = "unknown"
	}
	m.requests.WithLabelValues(method, code).Inc()
}

// pump counts run ends from engine events until ctx ends.
func (m *metrics) pump(ctx context.Context) {
	events, stop := m.s.eng.Subscribe(eventBuffer)
	defer stop()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				return
			}
			if ev.Kind == domain.EventRunEnd && ev.Run != nil {
				m.runsFinished.WithLabelValues(string(ev.Run.Status)).Inc()
			}
		}
	}
}

// observe times a store call.
func observe[T any](m *metrics, op string, fn func() (T, error)) (T, error) {
	start := time.Now()
	v, err := fn()
	m.storeLatency.WithLabelValues(op).Observe(time.Since(start).Seconds())
	return v, err
}

// stateCollector reads current state at scrape time (as the operator: a
// scrape needs read on /metrics): unfinished runs and outbox backlog,
// lane depth and active runs from the
// engine.
type stateCollector struct {
	m                                   *metrics
	runs, outbox, queue, active, passes *prometheus.Desc
}

func newStateCollector(m *metrics) stateCollector {
	return stateCollector{
		m: m,
		runs: prometheus.NewDesc("switchboard_runs", "Unfinished runs by status (capped at the runs list limit per status).",
			[]string{"status"}, nil),
		outbox: prometheus.NewDesc("switchboard_outbox_items", "Outbox items waiting or failed (capped at the outbox list limit per status).",
			[]string{"status"}, nil),
		queue:  prometheus.NewDesc("switchboard_lane_queue_depth", "Runs waiting in session lanes.", nil, nil),
		active: prometheus.NewDesc("switchboard_active_runs", "Runs executing now.", nil, nil),
		passes: prometheus.NewDesc("switchboard_outbox_passes_total", "Passes of the outbox worker that ran to their end (each attempts every item due when it began, unless another replica claimed it).", nil, nil),
	}
}

func (c stateCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.runs
	ch <- c.outbox
	ch <- c.queue
	ch <- c.active
	ch <- c.passes
}

func (c stateCollector) Collect(ch chan<- prometheus.Metric) {
	m := c.m
	ctx, cancel := context.WithTimeout(m.s.base, 5*time.Second)
	defer cancel()
	for _, st := range []domain.RunStatus{domain.RunQueued, domain.RunRunning} {
		runs, err := observe(m, "list_runs", func() ([]domain.Run, error) {
			return m.s.eng.ListRuns(ctx, api.Operator(), api.RunsRequest{Statuses: []domain.RunStatus{st}, Limit: int(api.RunsListLimit.Max)})
		})
		if err != nil {
			ch <- prometheus.NewInvalidMetric(c.runs, err)
			continue
		}
		ch <- prometheus.MustNewConstMetric(c.runs, prometheus.GaugeValue, float64(len(runs)), string(st))
	}
	for _, st := range []domain.OutboxStatus{domain.OutboxPending, domain.OutboxFailed} {
		items, err := observe(m, "list_outbox", func() ([]domain.OutboxItem, error) {
			return m.s.eng.Outbox(ctx, api.Operator(), api.OutboxRequest{Statuses: []domain.OutboxStatus{st}, Limit: int(api.OutboxListLimit.Max)})
		})
		if err != nil {
			ch <- prometheus.NewInvalidMetric(c.outbox, err)
			continue
		}
		ch <- prometheus.MustNewConstMetric(c.outbox, prometheus.GaugeValue, float64(len(items)), string(st))
	}
	queued, active := m.s.eng.Stats()
	ch <- prometheus.MustNewConstMetric(c.queue, prometheus.GaugeValue, float64(queued))
	ch <- prometheus.MustNewConstMetric(c.active, prometheus.GaugeValue, float64(active))
	ch <- prometheus.MustNewConstMetric(c.passes, prometheus.CounterValue, float64(m.s.eng.OutboxPasses()))
}
