package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
)

// stat is one latency summary in milliseconds, as both sides write it.
type stat struct {
	N   int     `json:"n"`
	P50 float64 `json:"p50"`
}

// openclawResult is the part of openclaw-nN.json compared here.
type openclawResult struct {
	Version string          `json:"openclawVersion"`
	Ms      map[string]stat `json:"ms"`
	MemMB   struct {
		AfterList float64 `json:"rssAfterList"`
		Peak      float64 `json:"rssPeakMaxRss"`
	} `json:"memMB"`
	Disk struct {
		SessionsJSON int64 `json:"sessionsJsonBytes"`
		SessionsDir  int64 `json:"sessionsDirBytes"`
	} `json:"disk"`
}

// switchboardResult is switchboard bench store's report.
type switchboardResult struct {
	Ms    map[string]json.RawMessage
	MemMB struct {
		RSS  float64 `json:"rss"`
		Peak float64 `json:"peak"`
	} `json:"memMB"`
	Disk int64 `json:"disk"`
	// MirrorDisk is the JSONL mirror beside the store (0 in reports from
	// before it was measured).
	MirrorDisk int64 `json:"mirrorDisk"`
	Import     struct {
		Messages int     `json:"messages"`
		Seconds  float64 `json:"seconds"`
	} `json:"import"`
}

// stat returns the latency summary under key (zero when absent).
func (s switchboardResult) stat(key string) stat {
	var st stat
	if raw, ok := s.Ms[key]; ok {
		_ = json.Unmarshal(raw, &st)
	}
	return st
}

// size is both sides' results at one store size.
type size struct {
	N  int
	OC openclawResult
	SB switchboardResult
}

var resultName = regexp.MustCompile(`^openclaw-n(\d+)\.json$`)

// loadResults reads every size that has both files, smallest first.
func loadResults(dir string) ([]size, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []size
	for _, e := range entries {
		m := resultName.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		s := size{N: n}
		if err := readJSON(filepath.Join(dir, e.Name()), &s.OC); err != nil {
			return nil, err
		}
		sbPath := filepath.Join(dir, "switchboard-n"+m[1]+".json")
		if _, err := os.Stat(sbPath); errors.Is(err, os.ErrNotExist) {
			continue
		}
		var raw map[string]json.RawMessage
		if err := readJSON(sbPath, &raw); err != nil {
			return nil, err
		}
		if err := readJSON(sbPath, &s.SB); err != nil {
			return nil, err
		}
		s.SB.Ms = raw // the latency keys sit at the top level
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no openclaw-nN.json with a matching switchboard-nN.json in %s", dir)
	}
	slices.SortFunc(out, func(a, b size) int { return a.N - b.N })
	return out, nil
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// operation is one compared operation: OpenClaw's key and switchboard's.
type operation struct {
	Name, Short, OC, SB string
}

var operations = []operation{
	{"list active 60 min, limit 200", "list active\nlimit 200", "listActive60Limit200Warm", "listActive60Limit200"},
	{"list all", "list all", "listAllWarm", "listAll"},
	{"history: last 50 of a 100,000-message session", "history\nlast 50", "historyLast50Big", "historyLast50Big"},
	{"update a session entry", "update\nentry", "updateEntrySequential", "updateEntrySequential"},
	{"update entry, 8 concurrent", "update\n×8", "updateEntryConcurrent8", "updateEntryConcurrent8"},
	{"update entry, 64 concurrent", "update\n×64", "updateEntryConcurrent64", "updateEntryConcurrent64"},
}
