package storebench

import (
	"math"
	"slices"
	"time"
)

// Report is the result of Run. Latencies are in milliseconds.
type Report struct {
	// ListActive60Limit200 lists sessions updated in the last 60 minutes,
	// at most 200.
	ListActive60Limit200 Stat `json:"listActive60Limit200"`
	// ListAll lists every session.
	ListAll Stat `json:"listAll"`
	// HistoryLast50Big reads the last 50 messages of the longest transcript.
	HistoryLast50Big Stat `json:"historyLast50Big"`
	// UpdateEntrySequential is one Update that reads a session row and
	// writes it back with a new updatedAt and token counts.
	UpdateEntrySequential Stat `json:"updateEntrySequential"`
	// UpdateEntryConcurrent8 and UpdateEntryConcurrent64 are the same
	// update from 8 and 64 goroutines at once.
	UpdateEntryConcurrent8  Stat `json:"updateEntryConcurrent8"`
	UpdateEntryConcurrent64 Stat `json:"updateEntryConcurrent64"`
	// MemMB is the process's memory right after its first full listing,
	// with the garbage and the store's write cache of what ran before (the
	// import) released first.
	MemMB Mem `json:"memMB"`
	// Disk is the size in bytes of the store's files (db, -wal, -shm),
	// after a TRUNCATE checkpoint where the store has one (SQLite): at
	// rest, as after a second without writes.
	Disk int64 `json:"disk"`
}

// Stat summarizes the latencies of one operation, in milliseconds.
type Stat struct {
	N    int     `json:"n"`
	Min  float64 `json:"min"`
	P50  float64 `json:"p50"`
	P95  float64 `json:"p95"`
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
}

// Mem is resident memory in MiB: RSS is current (VmRSS), Peak the high
// water mark of the process (VmHWM).
type Mem struct {
	RSS  float64 `json:"rss"`
	Peak float64 `json:"peak"`
}

// summarize computes a Stat from samples; percentiles use the nearest
// rank, so they are always observed values.
func summarize(samples []time.Duration) Stat {
	if len(samples) == 0 {
		return Stat{}
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	return Stat{
		N:    len(s),
		Min:  ms(s[0]),
		P50:  ms(rank(s, 0.50)),
		P95:  ms(rank(s, 0.95)),
		Max:  ms(s[len(s)-1]),
		Mean: ms(sum / time.Duration(len(s))),
	}
}

func rank(sorted []time.Duration, q float64) time.Duration {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
