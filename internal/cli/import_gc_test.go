package cli

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestRelaxGCForImport: the import raises GOGC and sets a memory limit
// only when the user set neither, and restores what was there.
func TestRelaxGCForImport(t *testing.T) {
	for _, tc := range []struct {
		name    string
		env     map[string]string
		relaxed bool
	}{
		{"defaults", nil, true},
		{"GOGC set", map[string]string{"GOGC": "50"}, false},
		{"GOMEMLIMIT set", map[string]string{"GOMEMLIMIT": "512MiB"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			beforePercent := debug.SetGCPercent(100)
			defer debug.SetGCPercent(beforePercent)
			beforeLimit := debug.SetMemoryLimit(math.MaxInt64)
			defer debug.SetMemoryLimit(beforeLimit)

			restore := relaxGCForImport(func(k string) string { return tc.env[k] })
			percent := debug.SetGCPercent(-1)
			debug.SetGCPercent(percent)
			limit := debug.SetMemoryLimit(-1)
			if tc.relaxed && (percent != importGCPercent || limit != importMemoryLimit) {
				t.Errorf("during the import GOGC=%d, limit %d; want %d, %d", percent, limit, importGCPercent, importMemoryLimit)
			}
			if !tc.relaxed && (percent != 100 || limit != math.MaxInt64) {
				t.Errorf("GOGC=%d, limit %d changed though the user set their own", percent, limit)
			}
			restore()
			percent = debug.SetGCPercent(-1)
			debug.SetGCPercent(percent)
			if percent != 100 || debug.SetMemoryLimit(-1) != math.MaxInt64 {
				t.Errorf("after the import GOGC=%d, limit %d; want 100 and none", percent, debug.SetMemoryLimit(-1))
			}
		})
	}
}
