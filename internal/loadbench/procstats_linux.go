package loadbench

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// clockTicks is USER_HZ, the unit of /proc/PID/stat's CPU times: 100 on
// every Linux architecture Go supports.
const clockTicks = 100

// procStats reads another process's RSS, CPU time and thread count from
// /proc (Goroutines carries its threads: it has no goroutines).
func procStats(pid int) (GatewayStats, error) {
	var st GatewayStats
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return st, fmt.Errorf("gateway process %d: %w", pid, err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		name, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		fields := strings.Fields(val)
		if len(fields) == 0 {
			continue
		}
		switch name {
		case "VmRSS":
			if kb, err := strconv.ParseFloat(fields[0], 64); err == nil {
				st.RSSMB = kb / 1024
			}
		case "Threads":
			st.Goroutines, _ = strconv.Atoi(fields[0])
		}
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return st, fmt.Errorf("gateway process %d: %w", pid, err)
	}
	// The command name (field 2) may hold spaces; fields count from its ")".
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return st, fmt.Errorf("gateway process %d: unreadable /proc stat", pid)
	}
	f := strings.Fields(string(stat[i+1:]))
	// utime and stime are fields 14 and 15 of the line, 12 and 13 here.
	if len(f) < 13 {
		return st, fmt.Errorf("gateway process %d: short /proc stat", pid)
	}
	ut, err1 := strconv.ParseFloat(f[11], 64)
	sy, err2 := strconv.ParseFloat(f[12], 64)
	if err1 != nil || err2 != nil {
		return st, fmt.Errorf("gateway process %d: unreadable CPU times", pid)
	}
	st.CPUSeconds = (ut + sy) / clockTicks
	return st, nil
}
