package storebench

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strconv"
)

// readMem reads VmRSS and VmHWM from /proc/self/status. Where there is no
// /proc (not Linux) it returns zeros.
func readMem() (Mem, error) {
	data, err := os.ReadFile("/proc/self/status")
	if errors.Is(err, fs.ErrNotExist) {
		return Mem{}, nil
	}
	if err != nil {
		return Mem{}, err
	}
	return parseStatus(data), nil
}

// parseStatus extracts VmRSS and VmHWM (given in kB) as MiB.
func parseStatus(data []byte) Mem {
	var m Mem
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		name, rest, ok := bytes.Cut(sc.Bytes(), []byte(":"))
		if !ok {
			continue
		}
		var dst *float64
		switch string(name) {
		case "VmRSS":
			dst = &m.RSS
		case "VmHWM":
			dst = &m.Peak
		default:
			continue
		}
		fields := bytes.Fields(rest)
		if len(fields) == 0 {
			continue
		}
		if kb, err := strconv.ParseFloat(string(fields[0]), 64); err == nil {
			*dst = kb / 1024
		}
	}
	return m
}

// diskSize sums the sizes of a SQLite database and its -wal and -shm
// files; missing ones count as zero.
func diskSize(dbPath string) (int64, error) {
	var total int64
	for _, p := range []string{dbPath, dbPath + "-wal", dbPath + "-shm"} {
		fi, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return 0, err
		}
		total += fi.Size()
	}
	return total, nil
}
