package loadbench

import (
	"slices"
	"sync"
	"time"
)

// Latency is a distribution summary in milliseconds.
type Latency struct {
	N    int     `json:"n"`
	P50  float64 `json:"p50"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
}

// recorder collects latencies from many goroutines. Each worker keeps its
// own slice and hands it over once, so recording costs no lock per sample.
type recorder struct {
	mu  sync.Mutex
	all []time.Duration
}

// merge adds one worker's samples.
func (r *recorder) merge(d []time.Duration) {
	r.mu.Lock()
	r.all = append(r.all, d...)
	r.mu.Unlock()
}

// summarize sorts the samples and reports percentiles (nearest rank).
func summarize(d []time.Duration) Latency {
	if len(d) == 0 {
		return Latency{}
	}
	s := slices.Clone(d)
	slices.Sort(s)
	ms := func(x time.Duration) float64 { return float64(x.Microseconds()) / 1000 }
	pct := func(p float64) float64 { return ms(s[int(p*float64(len(s)-1))]) }
	var sum time.Duration
	for _, x := range s {
		sum += x
	}
	return Latency{N: len(s), P50: pct(0.50), P95: pct(0.95), P99: pct(0.99), Max: ms(s[len(s)-1]), Mean: ms(sum / time.Duration(len(s)))}
}
