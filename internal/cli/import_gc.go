package cli

import (
	"math"
	"runtime/debug"
)

// An import is a one-shot batch: it allocates for every message it reads
// and keeps little of it, so with Go's default GOGC=100 the collector runs
// many times for garbage it could have left for longer. For the import's
// duration the command lets the heap grow to importGCPercent over the live
// heap, bounded by a soft memory limit so a large import's RSS stays
// sane; the collector works harder again as the heap nears the limit.
// A user who set GOGC or GOMEMLIMIT keeps their own settings.
const (
	importGCPercent   = 400
	importMemoryLimit = 1 << 30
)

// relaxGCForImport applies the import's collector settings and returns
// the function that restores the previous ones.
func relaxGCForImport(getenv func(string) string) (restore func()) {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	if debug.SetMemoryLimit(-1) != math.MaxInt64 {
		return func() {}
	}
	prevPercent := debug.SetGCPercent(importGCPercent)
	prevLimit := debug.SetMemoryLimit(importMemoryLimit)
	return func() {
		debug.SetGCPercent(prevPercent)
		debug.SetMemoryLimit(prevLimit)
	}
}
