//go:build unix

package gateway

import "syscall"

// fdLimit is the soft RLIMIT_NOFILE (Go raises it to the hard limit at
// start-up).
func fdLimit() (uint64, bool) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur == 0 {
		return 0, false
	}
	return uint64(rl.Cur), true
}
