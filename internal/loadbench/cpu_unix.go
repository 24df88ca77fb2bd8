//go:build unix

package loadbench

import (
	"syscall"
	"time"
)

// selfCPU is this process's CPU time so far (user + system), or 0 when
// the system does not say.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
