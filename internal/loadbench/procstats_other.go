//go:build !linux

package loadbench

import "errors"

// procStats needs Linux's /proc.
func procStats(int) (GatewayStats, error) {
	return GatewayStats{}, errors.New("--pid needs Linux's /proc")
}
