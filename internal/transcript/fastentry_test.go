package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// slowEntry is the encoding/json path fastEntry must agree with.
func slowEntry(line []byte) (wireEntry, bool) {
	var w wireEntry
	if json.Unmarshal(line, &w) != nil {
		return w, false
	}
	return w, true
}

// agree fails t when fastEntry accepts line but decodes it differently
// from encoding/json, or accepts a line encoding/json rejects.
func agree(t *testing.T, line []byte) (fastOK bool) {
	t.Helper()
	fast, ok := fastEntry(line)
	if !ok {
		return false
	}
	slow, slowOK := slowEntry(line)
	if !slowOK {
		t.Fatalf("fast path accepted a line encoding/json rejects: %s", line)
	}
	// A null timestamp is json.RawMessage("null") either way; compare
	// what parseTimestamp makes of it.
	fts, ft := parseTimestamp(fast.Timestamp)
	sts, st := parseTimestamp(slow.Timestamp)
	fast.Timestamp, slow.Timestamp = nil, nil
	if fts != sts || !ft.Equal(st) || !reflect.DeepEqual(fast, slow) {
		t.Fatalf("fast and encoding/json differ on %s:\nfast %#v\nslow %#v", line, fast, slow)
	}
	if fast.Message != nil && !reflect.DeepEqual(*fast.Message, *slow.Message) {
		t.Fatalf("messages differ on %s:\nfast %#v\nslow %#v", line, *fast.Message, *slow.Message)
	}
	return true
}

var fastCases = []struct {
	line   string
	fastOK bool
}{
	{`{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-02T03:04:05.000Z","message":{"role":"user","content":"hi","timestamp":1}}`, true},
	{`{"type":"message","id":"a2","parentId":"a1","message":{"role":"assistant","content":[{"type":"text","text":"line\nbreak \u00e9 \"q\""},{"type":"toolCall","id":"c1","name":"exec","arguments":{"cmd":["ls",1,true,null,-1.5e3]}}],"api":"x","provider":"p","model":"m","usage":{"input":1,"output":2,"totalTokens":3,"cost":{"total":0.5}},"stopReason":"toolUse","timestamp":5}}`, true},
	{`{"type":"message","id":"a3","message":{"role":"toolResult","toolCallId":"c1","toolName":"exec","isError":false,"details":{"x":[1,2]},"content":[{"type":"text","text":"ok"}],"timestamp":7,"extra":{"deep":[[]]}}}`, true},
	{` { "type" : "compaction" , "id" : "c" , "summary" : "s" , "timestamp" : 1700000000000 } `, true},
	{"{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":\"invalid utf8 \xff here\"}}", true},
	{`{"type":"message","message":{"role":"user","content":null,"provenance":{"kind":"k","step":"s"}}}`, true},
	{`{"type":"message","message":{"role":"assistant","usage":{"input":1,"output":2,"cacheRead":3,"cacheWrite":4,"totalTokens":10,"x":[1],"cost":{"input":1e-3,"output":0.25,"cacheRead":0,"cacheWrite":-0,"total":1.5E2,"y":null}}}}`, true},
	{`{"type":"message","timestamp":"2026-01-02T03:04:05Z","message":{"role":"assistant","usage":{}}}`, true},
	// Left to encoding/json: each must fall back, never decode differently.
	{`{"Type":"message","message":{"role":"user","content":"x"}}`, false},
	{`{"type":"message","message":{"Role":"user","content":"x"}}`, false},
	{`{"type":"message","message":{"role":"user","role":"assistant"}}`, false},
	{`{"type":"message","type":"custom"}`, false},
	{`{"type":"message","message":{"role":"user","content":[]}}`, false},
	{`{"type":"message","message":{"role":"user","content":[null]}}`, false},
	{`{"type":"message","message":{"role":"user","timestamp":1.5}}`, false},
	{`{"type":"message","message":{"role":"user","timestamp":01}}`, false},
	{`{"type":"message","message":{"role":"user","isError":null}}`, false},
	{`{"type":"message","message":{"role":"user","details":null}}`, false},
	{`{"type":"message","message":{"role":1}}`, false},
	{`{"type":"message","message":"text"}`, false},
	{`{"type":"message"} trailing`, false},
	{`{"type":"message",}`, false},
	{`{"type":"message","x":"bad \q escape"}`, false},
	{`{"type":"message","x":tru}`, false},
	{`{"type":"message","message":{"role":"user","content":"x"`, false},
	{`{"type":"message","message":{"role":"user","content":[{"type":"text","Text":"x"}]}}`, false},
	{`{"type":"message","message":{"role":"user","content":[{"type":"image","bytes":1e3}]}}`, false},
	{`{"type":"message","message":{"role":"assistant","usage":{"Input":1}}}`, false},
	{`{"type":"message","message":{"role":"assistant","usage":{"input":1,"input":2}}}`, false},
	{`{"type":"message","message":{"role":"assistant","usage":{"cost":null}}}`, false},
	{`{"type":"message","message":{"role":"assistant","usage":{"cost":{"total":1e400}}}}`, false},
	{`{"type":"message","message":{"role":"assistant","usage":{"input":1.5}}}`, false},
	{"{\"type\":\"message\",\"\u212aind\":\"x\"}", false},
}

func TestFastEntryMatchesJSON(t *testing.T) {
	for _, tc := range fastCases {
		if got := agree(t, []byte(tc.line)); got != tc.fastOK {
			t.Errorf("fastEntry ok = %v, want %v for %s", got, tc.fastOK, tc.line)
		}
	}
}

// TestFastEntryTestdata runs every line of the reader's test transcripts
// through both paths; the well-formed ones must take the fast path.
func TestFastEntryTestdata(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	fast := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if agree(t, bytes.TrimSpace(sc.Bytes())) {
				fast++
			}
		}
	}
	if fast == 0 {
		t.Fatal("no testdata line took the fast path")
	}
}

func FuzzFastEntry(f *testing.F) {
	for _, tc := range fastCases {
		f.Add([]byte(tc.line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		agree(t, line)
	})
}
