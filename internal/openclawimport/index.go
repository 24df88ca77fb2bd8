package openclawimport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// candidate is one sessions.json entry to import.
type candidate struct {
	dirAgent    string // the agents/<id> directory name
	sessionsDir string
	rawKey      string
	key         string // canonical
	agentID     string // of the canonical key
	spawnedBy   string // canonical parent key, "" when none
	e           entry
	// db is the agent database holding the transcript (SQLite layout
	// since 2026.8); nil when it is a JSONL file in sessionsDir.
	db *agentDB
}

// source is what loadIndexes found: the candidates and the agent
// databases they read from, to be closed after the import.
type source struct {
	cands []candidate
	dbs   []*agentDB
	// checked is closed when the databases' integrity checks are over,
	// with checkErr the first failure; nil when none was started.
	checked    chan struct{}
	checkErr   error
	stopChecks context.CancelFunc
}

// startChecks runs the integrity check of every database on a goroutine
// of its own, so the files are checked while the first sessions are
// planned (planning only reads); wait holds the commits back until the
// checks passed. hold (tests) delays the end of the checks until it is
// closed.
func (s *source) startChecks(ctx context.Context, hold <-chan struct{}) {
	if len(s.dbs) == 0 {
		return
	}
	ctx, s.stopChecks = context.WithCancel(ctx)
	s.checked = make(chan struct{})
	go func() {
		defer close(s.checked)
		if hold != nil {
			defer func() {
				select {
				case <-hold:
				case <-ctx.Done():
				}
			}()
		}
		for _, a := range s.dbs {
			if err := a.quickCheck(ctx); err != nil {
				s.checkErr = err
				return
			}
		}
	}()
}

// wait returns once every database passed its integrity check, or the
// first failure.
func (s *source) wait(ctx context.Context) error {
	if s.checked == nil {
		return nil
	}
	select {
	case <-s.checked:
		return s.checkErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *source) close() {
	if s.stopChecks != nil {
		s.stopChecks()
		<-s.checked
	}
	for _, a := range s.dbs {
		a.close()
	}
}

// loadIndexes reads the session rows of every agent under dir: its
// agents/<id>/agent/openclaw-agent.sqlite when there is one (OpenClaw
// since 2026.7; a sessions.json beside it is only OpenClaw's legacy
// migration input and is ignored), else agents/<id>/sessions/sessions.json.
// Any file that is not valid JSON, or a database that is locked, corrupt
// or from a newer OpenClaw, fails the whole import before anything is
// written; bad entries inside a valid file are skipped and counted.
// Its errors are about the user's files and name them (the os errors name
// the path), so they carry no package prefix: the CLI prints them as is.
func loadIndexes(ctx context.Context, dir string, opts Options, sum *Summary) (_ *source, err error) {
	src := &source{}
	defer func() {
		if err != nil {
			src.close()
		}
	}()
	agentsDir := filepath.Join(dir, "agents")
	dirents, err := os.ReadDir(agentsDir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s is not an OpenClaw state directory: %s is missing", dir, agentsDir)
		}
		return nil, err
	}
	var all []candidate
	for _, de := range dirents {
		if !de.IsDir() {
			continue
		}
		sessionsDir := filepath.Join(agentsDir, de.Name(), "sessions")
		dbPath := agentDBPath(dir, de.Name())
		if _, err := os.Stat(dbPath); err == nil {
			a, err := openAgentDB(ctx, dbPath, opts.LockWait)
			if err != nil {
				return nil, err
			}
			src.dbs = append(src.dbs, a)
			cands, err := parseAgentDB(ctx, a, de.Name(), sessionsDir, opts, sum)
			if err != nil {
				return nil, err
			}
			sum.Agents++
			all = append(all, cands...)
			continue
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		file := filepath.Join(sessionsDir, "sessions.json")
		data, err := os.ReadFile(file)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		cands, err := parseIndex(file, data, de.Name(), sessionsDir, opts, sum)
		if err != nil {
			return nil, err
		}
		sum.Agents++
		all = append(all, cands...)
	}
	if sum.Agents == 0 {
		return nil, fmt.Errorf("no agents/<agentId>/agent/%s or agents/<agentId>/sessions/sessions.json under %s", AgentDBName, dir)
	}
	src.cands = dedupe(all, sum)
	return src, nil
}

// parseIndex decodes one sessions.json: an object of sessionKey → entry,
// recorded in key order.
func parseIndex(file string, data []byte, dirAgent, sessionsDir string, opts Options, sum *Summary) ([]candidate, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, jsonError(file, data, err)
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return parseAll(len(keys), func(i int) indexEntry {
		return parseEntry(file, keys[i], raw[keys[i]], dirAgent, sessionsDir, opts)
	}, sum), nil
}

// parseAll runs parse for entries 0..n-1 on GOMAXPROCS goroutines (an
// index of 100,000 entries takes seconds on one) and records what they
// found in entry order: warnings, skips, and the candidates kept.
func parseAll(n int, parse func(i int) indexEntry, sum *Summary) []candidate {
	results := make([]indexEntry, n)
	workers := max(1, min(runtime.GOMAXPROCS(0), n/256))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				results[i] = parse(i)
			}
		})
	}
	wg.Wait()
	out := make([]candidate, 0, n)
	for i := range results {
		r := &results[i]
		if r.warning != "" {
			sum.warn(r.warning)
		}
		if r.skip != "" {
			sum.skip(r.skip, r.detail)
			continue
		}
		out = append(out, r.c)
	}
	return out
}

// indexEntry is what parseEntry made of one sessions.json entry: a
// candidate, or the reason to skip it.
type indexEntry struct {
	c            candidate
	skip, detail string
	warning      string
}

func parseEntry(file, k string, raw json.RawMessage, dirAgent, sessionsDir string, opts Options) indexEntry {
	r := indexEntry{c: candidate{dirAgent: dirAgent, sessionsDir: sessionsDir, rawKey: k}}
	c := &r.c
	if err := json.Unmarshal(raw, &c.e); err != nil {
		r.skip, r.detail = reasonInvalidEntry, fmt.Sprintf("%s: session %q: %v", file, k, err)
		return r
	}
	if err := checkSessionID(c.e.SessionID); err != nil {
		r.skip, r.detail = reasonInvalidEntry, fmt.Sprintf("%s: session %q: %v", file, k, err)
		return r
	}
	key, err := opts.Canonical(k, dirAgent)
	if err != nil {
		r.skip, r.detail = reasonInvalidKey, fmt.Sprintf("%s: session %q: %v", file, k, err)
		return r
	}
	c.key = key
	if c.agentID = agentOfKey(key); c.agentID == "" {
		r.skip, r.detail = reasonInvalidKey, fmt.Sprintf("%s: session %q: canonical key %q has no agent id", file, k, key)
		return r
	}
	parent := c.e.SpawnedBy
	if parent == "" {
		parent = c.e.ParentSessionKey
	}
	if parent != "" {
		if pk, err := opts.Canonical(parent, dirAgent); err == nil {
			c.spawnedBy = pk
		} else {
			r.warning = fmt.Sprintf("%s: session %q: spawnedBy dropped: %v", file, k, err)
		}
	}
	return r
}

// dedupe keeps, for each canonical key, the most recently updated entry:
// legacy mixed-case or bare keys canonicalize onto the same key, and
// OpenClaw merges such duplicates the same way.
func dedupe(cands []candidate, sum *Summary) []candidate {
	best := make(map[string]int, len(cands))
	drop := make([]bool, len(cands))
	for i := range cands {
		j, seen := best[cands[i].key]
		if !seen {
			best[cands[i].key] = i
			continue
		}
		loser := i
		if cands[i].e.UpdatedAt > cands[j].e.UpdatedAt {
			best[cands[i].key], loser = i, j
		}
		drop[loser] = true
		sum.skip(reasonDuplicateKey, fmt.Sprintf("session %q (agent %s) duplicates %q; the most recently updated entry wins",
			cands[loser].rawKey, cands[loser].dirAgent, cands[loser].key))
	}
	out := cands[:0]
	for i := range cands {
		if !drop[i] {
			out = append(out, cands[i])
		}
	}
	return out
}

const maxSessionIDLen = 255

func checkSessionID(id string) error {
	switch {
	case id == "":
		return errors.New("sessionId is missing")
	case len(id) > maxSessionIDLen:
		return fmt.Errorf("sessionId is %d bytes, longer than the limit of %d", len(id), maxSessionIDLen)
	case id == "." || id == ".." || strings.ContainsAny(id, "/\\\x00"):
		return fmt.Errorf("sessionId %q is not a valid file name", id)
	}
	return nil
}

// jsonError names the file and the line and column of a decode error.
func jsonError(file string, data []byte, err error) error {
	var (
		se  *json.SyntaxError
		te  *json.UnmarshalTypeError
		off int64 = -1
	)
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
		err = fmt.Errorf("want an object of sessionKey → entry: %w", err)
	}
	if off < 0 {
		return fmt.Errorf("%s: invalid JSON: %w", file, err)
	}
	// Offset counts the bytes read up to and including the bad one.
	pos := min(max(off-1, 0), int64(len(data)))
	line := 1 + bytes.Count(data[:pos], []byte{'\n'})
	col := pos - int64(bytes.LastIndexByte(data[:pos], '\n'))
	return fmt.Errorf("%s: invalid JSON at line %d, column %d (byte %d): %w", file, line, col, off, err)
}
