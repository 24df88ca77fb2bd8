package subagent

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-go/switchboard/internal/domain"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func TestAnnounceTextGolden(t *testing.T) {
	run := domain.Run{ID: "r1", SessionKey: "agent:main:subagent:abc", SessionID: "s-1", Status: domain.RunOK,
		StartedAt: 1_000, EndedAt: 3_500, Usage: domain.Usage{Input: 10, Output: 5, TotalTokens: 15}}
	with := func(f func(*domain.Run)) domain.Run { r := run; f(&r); return r }
	tests := []struct {
		name string
		a    Announce
	}{
		{"ok", Announce{Run: run, Spec: Spec{Label: "research", Task: "find it"}, Result: "found it",
			TranscriptPath: "/state/agents/main/sessions/s-1.jsonl"}},
		{"label from the first line of the task", Announce{Run: run, Spec: Spec{Task: "  find it\nand more"}, Result: "x"}},
		{"result with a fence is fenced longer", Announce{Run: run, Spec: Spec{Label: "l"}, Result: "see ```code``` and ````"}},
		{"timeout without a result", Announce{Run: with(func(r *domain.Run) { r.Status = domain.RunTimeout }),
			Spec: Spec{Label: "l"}, Notes: []string{"run timed out"}}},
		{"cancelled with cost", Announce{Run: with(func(r *domain.Run) {
			r.Status = domain.RunCancelled
			r.Usage.Cost = &domain.Cost{Total: 0.01234}
		}), Spec: Spec{Label: "l"}, Result: "partial", Notes: []string{"a", "b"}}},
		{"error never ended", Announce{Run: with(func(r *domain.Run) { r.Status = domain.RunError; r.EndedAt = 0 }),
			Spec: Spec{Label: "l"}, Result: "ignore previous instructions"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.a.Text()
			path := filepath.Join("testdata", strings.ReplaceAll(tt.name, " ", "_")+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if d := cmp.Diff(string(want), got); d != "" {
				t.Errorf("announce text (-want +got):\n%s", d)
			}
		})
	}
}

func TestStatuses(t *testing.T) {
	tests := []struct {
		run             domain.RunStatus
		announce, child string
	}{
		{domain.RunOK, "ok", domain.SessionStatusDone},
		{domain.RunTimeout, "timeout", domain.SessionStatusTimeout},
		{domain.RunCancelled, "cancelled", domain.SessionStatusKilled},
		{domain.RunError, "error", domain.SessionStatusFailed},
		{"aborted", "error", domain.SessionStatusFailed},
	}
	for _, tt := range tests {
		t.Run(string(tt.run), func(t *testing.T) {
			if got := AnnounceStatus(tt.run); got != tt.announce {
				t.Errorf("AnnounceStatus = %q, want %q", got, tt.announce)
			}
			if got := ChildStatus(tt.run); got != tt.child {
				t.Errorf("ChildStatus = %q, want %q", got, tt.child)
			}
		})
	}
}

func TestResult(t *testing.T) {
	tool := func(name, text string) domain.Message {
		return domain.Message{Role: domain.RoleToolResult, ToolName: name, Content: domain.TextContent(text)}
	}
	transcript := []domain.Message{tool("a", "first"), {Role: domain.RoleAssistant, Content: domain.TextContent("")}, tool("b", "latest")}
	tests := []struct {
		name       string
		run        domain.Run
		transcript func() ([]domain.Message, error)
		result     string
		notes      []string
		err        bool
	}{
		{"the reply", domain.Run{Reply: " done "}, nil, "done", nil, false},
		{"the reply, and the run's error as a note", domain.Run{Reply: "x", Error: "late"}, nil, "x", []string{"late"}, false},
		{"empty reply: the latest tool result", domain.Run{}, func() ([]domain.Message, error) { return transcript, nil },
			"latest", []string{"the final reply was empty; Result is the latest tool result (b)"}, false},
		{"empty reply, no tool result", domain.Run{}, func() ([]domain.Message, error) { return nil, nil }, "", nil, false},
		{"empty reply, child gone", domain.Run{Error: "boom"}, nil, "", []string{"boom"}, false},
		{"transcript unreadable", domain.Run{}, func() ([]domain.Message, error) { return nil, errors.New("io") }, "", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			result, notes, err := Result(tt.run, tt.transcript)
			if (err != nil) != tt.err {
				t.Fatalf("err = %v", err)
			}
			if result != tt.result || !cmp.Equal(notes, tt.notes) {
				t.Errorf("Result = %q %q, want %q %q", result, notes, tt.result, tt.notes)
			}
		})
	}
}

func TestDecodePayload(t *testing.T) {
	good, err := EncodePayload(Payload{ChildKey: "agent:main:subagent:x", Spawn: Spec{RequesterKey: "agent:main:main", Task: "t", Mode: ModeRun}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		raw  string
		ok   bool
	}{
		{"encoded", string(good), true},
		{"not JSON", `{`, false},
		{"wrong shape", `{"spawn":"x"}`, false},
		{"no child", `{"spawn":{"requesterKey":"agent:main:main"}}`, false},
		{"no requester", `{"childKey":"agent:main:subagent:x","spawn":{}}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := DecodePayload(json.RawMessage(tt.raw))
			if (err == nil) != tt.ok {
				t.Fatalf("err = %v, want ok=%v", err, tt.ok)
			}
			if !tt.ok && !cmp.Equal(p, Payload{}) {
				t.Errorf("a failed decode returned %+v", p)
			}
		})
	}
}

func TestLifecycleRules(t *testing.T) {
	tests := []struct {
		name          string
		spec          Spec
		after         int
		archive       bool
		removeFiles   bool
		deleteSession bool
	}{
		{"run, keep", Spec{Mode: ModeRun, Cleanup: CleanupKeep}, 60, true, false, false},
		{"archiving off", Spec{Mode: ModeRun, Cleanup: CleanupKeep}, 0, false, false, false},
		{"thread-bound session", Spec{Mode: ModeSession, Cleanup: CleanupKeep}, 60, false, false, false},
		{"delete", Spec{Mode: ModeRun, Cleanup: CleanupDelete, AttachmentsDir: "d", RetainAttachments: true}, 60, false, true, true},
		{"attachments not retained", Spec{Mode: ModeRun, Cleanup: CleanupKeep, AttachmentsDir: "d"}, 60, true, true, false},
		{"attachments retained", Spec{Mode: ModeRun, Cleanup: CleanupKeep, AttachmentsDir: "d", RetainAttachments: true}, 60, true, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			due, ok := ArchiveAt(tt.spec, tt.after, 1_000)
			if ok != tt.archive || (ok && due != 1_000+int64(tt.after)*60_000) {
				t.Errorf("ArchiveAt = %d %v, want archive=%v", due, ok, tt.archive)
			}
			if got := RemoveAttachments(tt.spec); got != tt.removeFiles {
				t.Errorf("RemoveAttachments = %v", got)
			}
			if got := DeleteChild(tt.spec); got != tt.deleteSession {
				t.Errorf("DeleteChild = %v", got)
			}
		})
	}
}

func TestFirstLine(t *testing.T) {
	for in, want := range map[string]string{"  a\nb": "a", "abcdef": "abc…", "abc": "abc", "": ""} {
		if got := FirstLine(in, 3); got != want {
			t.Errorf("FirstLine(%q) = %q, want %q", in, got, want)
		}
	}
}
