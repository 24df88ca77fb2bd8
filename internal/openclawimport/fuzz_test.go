package openclawimport

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/transcript"
)

// fuzzGoodID is the sessionId of the well-formed session next to the
// fuzzed one; the fuzzed transcript line goes into its transcript.
const fuzzGoodID = "0b0e8a41-6c1d-4c57-9a52-2b1f3f7f00aa"

// importLineSeeds are sessions.json entries and transcript lines that
// once took the import somewhere new: FuzzImportLine's seeds, and the
// cases TestImportLineWhole imports into a store.
var importLineSeeds = []struct{ entry, line string }{
	{`{"sessionId":"0b0e8a41-6c1d-4c57-9a52-2b1f3f7f00bb","updatedAt":1775037604000,"label":"x"}`, goodLine},
	{`{"sessionId":"../../etc/passwd"}`, `{"type":"message","id":"m2","parentId":"m1","message":{"role":"assistant","content":[{"type":"text","text":"hi"}]}}`},
	{`{"sessionId":"0b0e8a41-6c1d-4c57-9a52-2b1f3f7f00bb","sessionFile":"/etc/hostname","inputTokens":"12","updatedAt":1e308}`, `not json`},
	{`{}`, `{"type":"message","id":"m2","parentId":"nope","message":{"role":"toolResult","content":null}}`},
	{`null`, `{"type":"session","version":99}`},
	{`[]`, `{"type":"message","id":"m2","parentId":"m2","message":{"role":"user","content":[{"type":"image","data":"@@"}]}}`},
	{`{"sessionId":"","spawnedBy":"agent:main:main","spawnDepth":-1}`, `{"type":"compaction","id":"c1","parentId":"m1","summary":"s"}`},
	{`{"sessionId":"0b0e8a41-6c1d-4c57-9a52-2b1f3f7f00aa"}`, "\x00\xff"},
	{`{"sessionId":"0b0e8a41-6c1d-4c57-9a52-2b1f3f7f00cc","label":"a\u0000b\u202e"}`, `{"type":"message","id":"m1","parentId":null,"message":{"role":"user","content":"dup id"}}`},
	{`{"sessionId":"0b0e8a41-6c1d-4c57-9a52-2b1f3f7f00dd","sessionFile":"../../../../x.jsonl"}`, `{"type":"message","id":"m1","parentId":null,"message":{"role":"user","content":"again"}}`},
	{`{"sessionId":"0b0e8a41-6c1d-4c57-9a52-2b1f3f7f00aa"}`, `{"type":"message","id":"m3","parentId":"m9","message":{"role":"user","content":[{"type":"text"}]}}`},
	{`1}, "x": {`, `{"type":"message"}`},
}

// goodLine is the transcript line before the fuzzed one.
const goodLine = `{"type":"message","id":"m1","parentId":null,"timestamp":"2026-04-01T10:04:50.000Z","message":{"role":"user","content":"hello","timestamp":1775037890000}}`

// importState is the state FuzzImportLine and TestImportLineWhole read:
// a sessions.json holding a good entry and the fuzzed one, and the good
// session's transcript with the fuzzed line between two good ones.
func importState(entry, line string) (index, text string) {
	index = `{"agent:main:good":{"sessionId":"` + fuzzGoodID + `","updatedAt":1775037604000},"agent:main:fuzzed":` + entry + `}`
	text = `{"type":"session","version":3,"id":"` + fuzzGoodID + `","timestamp":"2026-04-01T10:04:00.000Z","cwd":"/w"}` + "\n" +
		goodLine + "\n" + line + "\n" +
		`{"type":"message","id":"m9","parentId":"m1","timestamp":"2026-04-01T10:05:00.000Z","message":{"role":"assistant","content":[{"type":"text","text":"bye"}]}}` + "\n"
	return index, text
}

// FuzzImportLine decodes a sessions.json holding one fuzzed entry and a
// transcript holding one fuzzed line (between two good ones), as the
// import does before it writes: decoding never panics, a sessions.json
// is refused only when it is not JSON, every entry kept has a canonical
// key and an agent and maps to a session row of that key, and the good
// transcript keeps its two good messages. It needs no store, so an input
// costs microseconds; TestImportLineWhole imports the seeds into one.
func FuzzImportLine(f *testing.F) {
	for _, s := range importLineSeeds {
		f.Add(s.entry, s.line)
	}
	opts, err := testOptions().withDefaults()
	if err != nil {
		f.Fatal(err)
	}
	tr := newTranscriptReader()
	f.Fuzz(func(t *testing.T, entry, line string) {
		index, text := importState(entry, line)
		sum := newSummary()
		cands, err := parseIndex("sessions.json", []byte(index), "main", "sessions", opts, &sum)
		if err != nil {
			if json.Valid([]byte(index)) {
				t.Fatalf("a sessions.json that is JSON was refused: %v", err)
			}
			return
		}
		for _, c := range cands {
			if c.key == "" || c.agentID == "" {
				t.Fatalf("entry kept without a key or an agent: %+v", c)
			}
			row := c.e.session(domain.Session{}, c.key, c.agentID, opts.Kind(c.key), c.spawnedBy, fixedNow.UnixMilli())
			if row.Key != c.key || row.AgentID != c.agentID {
				t.Fatalf("entry %q maps to row %q of agent %q", c.key, row.Key, row.AgentID)
			}
		}
		tr.rd.Reset(strings.NewReader(text))
		_, entries, _, err := transcript.ReadScratch(tr.rd, &tr.sc)
		if err != nil {
			t.Fatalf("transcript refused because of line %q: %v", line, err)
		}
		if msgs := transcript.Messages(tr.sc.ActiveBranch(entries)); len(msgs) < 2 {
			t.Fatalf("the good transcript has %d messages after line %q", len(msgs), line)
		}
	})
}

// TestImportLineWhole imports each seed of FuzzImportLine into a store:
// the import never panics; a refused sessions.json writes nothing; every
// session it writes is whole — a second import writes nothing more — and
// the well-formed session keeps its two good messages.
func TestImportLineWhole(t *testing.T) {
	for i, s := range importLineSeeds {
		t.Run(fmt.Sprint(i), func(t *testing.T) { importWhole(t, s.entry, s.line) })
	}
}

func importWhole(t *testing.T, entry, line string) {
	ctx := context.Background()
	dir := t.TempDir()
	sessions := filepath.Join(dir, "agents", "main", "sessions")
	if err := os.MkdirAll(sessions, 0o755); err != nil {
		t.Fatal(err)
	}
	index, text := importState(entry, line)
	if err := os.WriteFile(filepath.Join(sessions, "sessions.json"), []byte(index), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sessions, fuzzGoodID+".jsonl"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	st := openStore(t)
	// A hang is a failure with its input, not a stalled fuzzer.
	type result struct {
		err error
	}
	done := make(chan result, 1)
	go func() {
		_, err := Import(ctx, st, dir, testOptions())
		done <- result{err}
	}()
	var err error
	select {
	case r := <-done:
		err = r.err
	case <-time.After(20 * time.Second):
		t.Fatalf("import hangs on entry %q, line %q", entry, line)
	}
	rows, lerr := st.ListSessions(ctx, domain.SessionQuery{IncludeArchived: true})
	if lerr != nil {
		t.Fatal(lerr)
	}
	if err != nil {
		// sessions.json is read whole before anything is written.
		if len(rows) > 0 {
			t.Fatalf("import failed (%v) but wrote %d sessions", err, len(rows))
		}
		return
	}
	if !json.Valid([]byte(index)) {
		t.Fatalf("a garbled sessions.json was imported: %s", index)
	}
	again, err := Import(ctx, st, dir, testOptions())
	if err != nil {
		t.Fatalf("second import: %v", err)
	}
	if again.Sessions != 0 || again.Messages != 0 {
		t.Fatalf("second import wrote %d sessions and %d messages: the first left a session partial", again.Sessions, again.Messages)
	}
	for _, r := range rows {
		if r.Key != "agent:main:good" {
			continue
		}
		msgs, err := st.ReadMessages(ctx, r.Key, domain.MessageQuery{SessionID: r.SessionID, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if len(msgs) < 2 {
			t.Fatalf("the good session has %d messages after line %q", len(msgs), line)
		}
	}
}
