//go:build unix

package engine

import (
	"syscall"
	"testing"
	"time"
)

// cpuMeter reports the process's CPU time (user + system) per operation:
// on a machine shared with other work, wall-clock latency measures the
// neighbours as much as the code, CPU time much less so.
type cpuMeter struct{ start time.Duration }

func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func startCPU(b *testing.B) cpuMeter { return cpuMeter{start: processCPU(b)} }

func (m cpuMeter) report(b *testing.B) {
	b.ReportMetric(float64((processCPU(b)-m.start).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}
