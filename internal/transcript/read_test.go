package transcript

import (
	"bytes"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadFile(t *testing.T) {
	type want struct {
		headerID  string
		branchIDs []string // ids of the active branch, in order
		texts     []string // message texts of the active branch
		stats     Stats    // Skips compared as "line:reason"
		skips     []string
		errSub    string
	}
	tests := []struct {
		file string
		want want
	}{
		{"normal.jsonl", want{
			headerID:  "11111111-1111-4111-8111-111111111111",
			branchIDs: []string{"a0000001", "a0000002", "a0000003", "a0000004"},
			texts:     []string{"What is the weather?", "Let me check.", "4°C, rain", "It is 4°C and raining in Oslo."},
			stats:     Stats{Lines: 5, Entries: 4, Messages: 4},
		}},
		{"branched.jsonl", want{
			headerID:  "22222222-2222-4222-8222-222222222222",
			branchIDs: []string{"b0000001", "b0000002", "b0000005", "b0000006", "b0000007"},
			texts:     []string{"hi", "hello", "tell me a better joke", "better joke"},
			stats:     Stats{Lines: 8, Entries: 7, Messages: 6},
		}},
		{"garbled.jsonl", want{
			headerID:  "33333333-3333-4333-8333-333333333333",
			branchIDs: []string{"c0000001", "c0000003", "c0000004", "c0000005"},
			texts:     []string{"one", "three", "five"},
			stats:     Stats{Lines: 10, Entries: 4, Messages: 3, Skipped: 5},
			skips: []string{
				"3:" + ReasonInvalidJSON, "6:" + ReasonMissingType, "7:" + ReasonNoMessage,
				"8:" + ReasonInvalidEntry, "9:" + ReasonInvalidEntry,
			},
		}},
		{"truncated.jsonl", want{
			headerID:  "44444444-4444-4444-8444-444444444444",
			branchIDs: []string{"e0000001"},
			texts:     []string{"hi"},
			stats:     Stats{Lines: 3, Entries: 1, Messages: 1, Skipped: 1},
			skips:     []string{"3:" + ReasonTruncated},
		}},
		{"noparents.jsonl", want{
			headerID:  "55555555-5555-4555-8555-555555555555",
			branchIDs: []string{"f1", "f2", "f3"},
			texts:     []string{"a", "b", "c"},
			stats:     Stats{Lines: 4, Entries: 3, Messages: 3},
		}},
		{"noheader.jsonl", want{errSub: "line 1: first line is not a session header"}},
		{"missing.jsonl", want{errSub: "no such file"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("testdata", tt.file)
			h, entries, st, err := ReadFile(path)
			if tt.want.errSub != "" {
				if err == nil || !strings.Contains(err.Error(), tt.want.errSub) {
					t.Fatalf("err = %v, want one containing %q", err, tt.want.errSub)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if h.ID != tt.want.headerID || h.Type != TypeSession {
				t.Errorf("header = %+v, want id %s", h, tt.want.headerID)
			}
			var skips []string
			for _, s := range st.Skips {
				skips = append(skips, strconv.Itoa(s.Line)+":"+s.Reason)
			}
			if diff := cmp.Diff(tt.want.skips, skips); diff != "" {
				t.Errorf("skips (-want +got):\n%s", diff)
			}
			st.Skips = nil
			if diff := cmp.Diff(tt.want.stats, st); diff != "" {
				t.Errorf("stats (-want +got):\n%s", diff)
			}
			branch := ActiveBranch(entries)
			var ids []string
			for _, e := range branch {
				ids = append(ids, e.ID)
			}
			if diff := cmp.Diff(tt.want.branchIDs, ids); diff != "" {
				t.Errorf("active branch (-want +got):\n%s", diff)
			}
			var texts []string
			for _, m := range Messages(branch) {
				texts = append(texts, m.Content.Text())
			}
			if diff := cmp.Diff(tt.want.texts, texts); diff != "" {
				t.Errorf("texts (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadFileMessageFields(t *testing.T) {
	_, entries, _, err := ReadFile(filepath.Join("testdata", "normal.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	m := entries[1].Message
	if m.ID != "a0000002" || m.ParentID != "a0000001" {
		t.Errorf("ids = %q/%q", m.ID, m.ParentID)
	}
	if m.Usage == nil || m.Usage.TotalTokens != 150 || m.Usage.Cost == nil || m.Usage.Cost.Total != 0.0003 {
		t.Errorf("usage = %+v", m.Usage)
	}
	calls := m.Content.ToolCalls()
	if len(calls) != 1 || calls[0].Name != "weather" || string(calls[0].Arguments) != `{"city":"Oslo"}` {
		t.Errorf("tool calls = %+v", calls)
	}
	tr := entries[2].Message
	if tr.ToolCallID != "call_1" || tr.IsError == nil || *tr.IsError {
		t.Errorf("toolResult = %+v", tr)
	}
	if got := entries[0].Time.UnixMilli(); got != 1775037601000 {
		t.Errorf("entry time = %d", got)
	}
}

func TestReadLongLines(t *testing.T) {
	header := `{"type":"session","version":3,"id":"s","timestamp":"2026-04-01T10:00:00.000Z","cwd":"/w"}`
	big := strings.Repeat("x", 5<<20) // several MB, beyond bufio.Scanner's default
	line := `{"type":"message","id":"m1","parentId":null,"message":{"role":"user","content":"` + big + `","timestamp":1}}`
	small := `{"type":"message","id":"m2","parentId":"m1","message":{"role":"assistant","content":"ok","timestamp":2}}`
	input := header + "\n" + line + "\n" + small + "\n"

	t.Run("several MB", func(t *testing.T) {
		_, entries, st, err := Read(strings.NewReader(input))
		if err != nil {
			t.Fatal(err)
		}
		if st.Messages != 2 || st.Skipped != 0 || len(entries[0].Message.Content.Text()) != len(big) {
			t.Fatalf("stats = %+v", st)
		}
	})
	t.Run("over the limit", func(t *testing.T) {
		_, entries, st, err := read(strings.NewReader(input), 1<<20, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if st.Skipped != 1 || st.Skips[0].Reason != ReasonLineTooLong || st.Skips[0].Line != 2 {
			t.Fatalf("stats = %+v", st)
		}
		if len(entries) != 1 || entries[0].ID != "m2" {
			t.Fatalf("entries = %+v", entries)
		}
	})
	t.Run("long header over the limit", func(t *testing.T) {
		_, _, _, err := read(strings.NewReader(header+"\n"), 10, nil, nil)
		if err == nil || !strings.Contains(err.Error(), "header is longer than 10 bytes") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestReadEdgeCases(t *testing.T) {
	tests := []struct {
		name   string
		input  string
		errSub string
	}{
		{"empty", "", "no session header"},
		{"blank lines only", "\n\n  \n", "no session header"},
		{"garbage header", "{nope\n", "first line is not a session header"},
		{"crlf", "{\"type\":\"session\",\"id\":\"x\"}\r\n{\"type\":\"message\",\"id\":\"m\",\"message\":{\"role\":\"user\",\"content\":\"hi\",\"timestamp\":1}}\r\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, entries, _, err := Read(bytes.NewReader([]byte(tt.input)))
			if tt.errSub != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errSub) {
					t.Fatalf("err = %v, want %q", err, tt.errSub)
				}
				return
			}
			if err != nil || len(entries) != 1 {
				t.Fatalf("entries = %v, err = %v", entries, err)
			}
		})
	}
}

func TestActiveBranchDegenerate(t *testing.T) {
	if got := ActiveBranch(nil); got != nil {
		t.Errorf("ActiveBranch(nil) = %v", got)
	}
	// A parent that points forward (or at itself) must not loop forever.
	entries := []Entry{{ID: "a", ParentID: "b"}, {ID: "b", ParentID: "b"}}
	got := ActiveBranch(entries)
	if len(got) != 2 || got[0].ID != "a" || got[1].ID != "b" {
		t.Errorf("got %+v", got)
	}
}
