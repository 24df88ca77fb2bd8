package openclawimport

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/sqlite"
	"github.com/switchboard-go/switchboard/internal/transcript"
)

var fixedNow = time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC)

func openStore(t testing.TB) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "state.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func testOptions() Options {
	return Options{Now: func() time.Time { return fixedNow }}
}

// brief renders a message as role: text, for comparing transcripts.
func brief(msgs []domain.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Role + ": " + m.Content.Text()
	}
	return out
}

func TestImportFixture(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	sum, err := Import(ctx, st, filepath.Join("testdata", "openclaw"), testOptions())
	if err != nil {
		t.Fatal(err)
	}

	wantSummary := Summary{
		Agents: 2, Sessions: 6, SessionsSkipped: 2, Messages: 14, LinesSkipped: 1,
		Largest: "agent:main:main", LargestMessages: 4, // the subagent ties; the first one wins
		Skipped: map[string]int{
			reasonInvalidEntry:                        1, // agent:main:broken has no sessionId
			reasonDuplicateKey:                        1, // work's MAIN loses to agent:work:main
			reasonNoTranscript:                        1, // cron:nightly
			linePrefix + transcript.ReasonInvalidJSON: 1,
		},
	}
	if diff := cmp.Diff(wantSummary, sum, cmpopts.IgnoreFields(Summary{}, "Warnings"), cmpopts.IgnoreUnexported(Summary{})); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	for _, sub := range []string{"sessionId is missing", `"MAIN"`, "no transcript", "line 3: invalid JSON"} {
		if !strings.Contains(strings.Join(sum.Warnings, "\n"), sub) {
			t.Errorf("warnings lack %q:\n%s", sub, strings.Join(sum.Warnings, "\n"))
		}
	}

	rows, err := st.ListSessions(ctx, domain.SessionQuery{})
	if err != nil {
		t.Fatal(err)
	}
	wantRows := []domain.Session{
		{Key: "agent:work:main", AgentID: "work", SessionID: "0b0e8a41-6c1d-4c57-9a52-2b1f3f7f0006", Kind: domain.KindMain,
			CreatedAt: 1775037890000, UpdatedAt: 1775037900000},
		{Key: "agent:main:subagent:5f0c2a9e-1111-4a2b-9c3d-000000000001", AgentID: "main", SessionID: "0b0e8a41-6c1d-4c57-9a52-2b1f3f7f0003",
			Kind: domain.KindOther, Label: "research", SpawnedBy: "agent:main:main", SpawnDepth: 1, ForkedFromParent: true,
			Model: "gpt-4.1-mini", ModelProvider: "openai", InputTokens: 12, OutputTokens: 3, EstimatedCostUSD: 0.0012,
			Status: "done", StartedAt: 1775037790000, EndedAt: 1775037800000, CreatedAt: 1775037601000, UpdatedAt: 1775037800000},
		{Key: "agent:main:discord:group:123", AgentID: "main", SessionID: "0b0e8a41-6c1d-4c57-9a52-2b1f3f7f0002", Kind: domain.KindGroup,
			Channel: "discord", ChatType: "group", DisplayName: "discord #ops",
			Origin:      &domain.Origin{Provider: "discord", AccountID: "default"},
			Delivery:    &domain.DeliveryContext{Channel: "discord", To: "channel:123", AccountID: "default", ThreadID: "987654321"},
			LastChannel: "discord", LastTo: "channel:123", LastAccount: "default", SendPolicy: domain.SendPolicyDeny,
			Model: "claude-sonnet-4-5", ModelProvider: "anthropic", TotalTokens: 50, CreatedAt: 1775037690000, UpdatedAt: 1775037700000},
		{Key: "agent:main:main", AgentID: "main", SessionID: "0b0e8a41-6c1d-4c57-9a52-2b1f3f7f0001", Kind: domain.KindMain,
			Delivery:    &domain.DeliveryContext{Channel: "webchat", To: "webchat"},
			LastChannel: "webchat", LastTo: "webchat", Model: "gpt-4.1-mini", ModelProvider: "openai", ThinkingLevel: "low", SystemSent: true,
			InputTokens: 280, OutputTokens: 42, TotalTokens: 322, ContextTokens: 128000, CreatedAt: 1775037601000, UpdatedAt: 1775037604000},
		{Key: "agent:main:legacy-direct", AgentID: "main", SessionID: "0b0e8a41-6c1d-4c57-9a52-2b1f3f7f0004", Kind: domain.KindOther,
			ChatType: "direct", Origin: &domain.Origin{Provider: "telegram"}, LastChannel: "telegram", LastTo: "42424242",
			CreatedAt: 1775037490000, UpdatedAt: 1775037500000},
		{Key: "agent:main:cron:nightly", AgentID: "main", SessionID: "0b0e8a41-6c1d-4c57-9a52-2b1f3f7f0005", Kind: domain.KindCron,
			CreatedAt: 1775037400000, UpdatedAt: 1775037400000},
	}
	if diff := cmp.Diff(wantRows, rows); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}

	wantMsgs := map[string][]string{
		"agent:main:main":              {"user: What is the weather?", "assistant: Let me check.", "toolResult: 4°C, rain", "assistant: It is 4°C and raining in Oslo."},
		"agent:main:discord:group:123": {"user: [discord #ops] alice: deploy status?", "assistant: Deploy is green."},
		"agent:main:subagent:5f0c2a9e-1111-4a2b-9c3d-000000000001": {"user: hi", "assistant: hello", "user: tell me a better joke", "assistant: better joke"},
		"agent:main:legacy-direct":                                 {"user: ping", "assistant: pong"},
		"agent:main:cron:nightly":                                  nil,
		"agent:work:main":                                          {"user: work hello", "assistant: work hi"},
	}
	for key, want := range wantMsgs {
		got, err := st.ReadMessages(ctx, key, domain.MessageQuery{})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, brief(got), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s messages (-want +got):\n%s", key, diff)
		}
	}

	// Message fields survive the trip: tool calls, usage, thinking, provenance.
	main, _ := st.ReadMessages(ctx, "agent:main:main", domain.MessageQuery{})
	wantCall := domain.Message{Role: domain.RoleAssistant, Timestamp: 1775037602000, API: "openai-responses", Provider: "openai",
		Model: "gpt-4.1-mini", StopReason: domain.StopReasonToolUse,
		Content: domain.BlockContent(domain.TextBlock("Let me check."), domain.Block{Type: domain.BlockToolCall, ID: "call_1", Name: "weather", Arguments: []byte(`{"city":"Oslo"}`)}),
		Usage:   &domain.Usage{Input: 120, Output: 30, TotalTokens: 150, Cost: &domain.Cost{Input: 0.0001, Output: 0.0002, Total: 0.0003}}}
	if diff := cmp.Diff(wantCall, main[1], cmp.AllowUnexported(domain.Content{}),
		cmpopts.IgnoreFields(domain.Message{}, "Seq", "ID", "ParentID", "SessionID")); diff != "" {
		t.Errorf("tool call message (-want +got):\n%s", diff)
	}
	group, _ := st.ReadMessages(ctx, "agent:main:discord:group:123", domain.MessageQuery{})
	if p := group[0].Provenance; p == nil || p.Kind != domain.ProvenanceExternalUser || p.SourceChannel != "discord" {
		t.Errorf("provenance = %+v", p)
	}
	if b := group[1].Content.Blocks(); len(b) != 2 || b[0].Type != domain.BlockThinking || b[0].ThinkingSignature != "sig" {
		t.Errorf("thinking blocks = %+v", b)
	}
}

func TestImportTwiceChangesNothing(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	dir := filepath.Join("testdata", "openclaw")
	first, err := Import(ctx, st, dir, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, st)
	second, err := Import(ctx, st, dir, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if second.Sessions != 0 || second.Messages != 0 || second.Skipped[reasonUnchanged] != first.Sessions ||
		second.Largest != first.Largest || second.LargestMessages != first.LargestMessages {
		t.Errorf("second import: %+v", second)
	}
	if diff := cmp.Diff(before, snapshot(t, st), cmp.AllowUnexported(domain.Content{})); diff != "" {
		t.Errorf("store changed on the second import (-first +second):\n%s", diff)
	}
}

// snapshot returns every row and message of st.
func snapshot(t *testing.T, st domain.Store) map[string]any {
	t.Helper()
	ctx := context.Background()
	rows, err := st.ListSessions(ctx, domain.SessionQuery{IncludeArchived: true})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]any{"rows": rows}
	for _, r := range rows {
		msgs, err := st.ReadMessages(ctx, r.Key, domain.MessageQuery{})
		if err != nil {
			t.Fatal(err)
		}
		out[r.Key] = msgs
	}
	return out
}

func TestImportAppendsGrownTranscript(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	dir := t.TempDir()
	copyDir(t, filepath.Join("testdata", "openclaw"), dir)
	if _, err := Import(ctx, st, dir, testOptions()); err != nil {
		t.Fatal(err)
	}
	// OpenClaw went on with the work agent's main session after the import.
	f, err := os.OpenFile(filepath.Join(dir, "agents", "work", "sessions", "renamed-transcript.jsonl"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"message","id":"w0000003","parentId":"w0000002","timestamp":"2026-04-01T10:06:00.000Z","message":{"role":"user","content":"more","timestamp":1775037960000}}` + "\n")
	f.Close()

	sum, err := Import(ctx, st, dir, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Sessions != 1 || sum.Messages != 1 {
		t.Errorf("summary = %+v", sum)
	}
	got, _ := st.ReadMessages(ctx, "agent:work:main", domain.MessageQuery{})
	if diff := cmp.Diff([]string{"user: work hello", "assistant: work hi", "user: more"}, brief(got)); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}

func TestImportGarbledIndexWritesNothing(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	_, err := Import(ctx, st, filepath.Join("testdata", "garbled"), testOptions())
	want := filepath.Join("testdata", "garbled", "agents", "main", "sessions", "sessions.json") + ": invalid JSON at line 5, column 3"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want one containing %q", err, want)
	}
	n, err := st.CountSessions(ctx, domain.SessionQuery{IncludeArchived: true})
	if err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d sessions written despite the error", n)
	}
}

func TestImportErrors(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	empty := t.TempDir()
	noIndex := t.TempDir()
	os.MkdirAll(filepath.Join(noIndex, "agents", "main", "sessions"), 0o700)
	notObject := t.TempDir()
	writeFile(t, filepath.Join(notObject, "agents", "main", "sessions", "sessions.json"), "\n[1, 2]")
	tests := []struct {
		name, dir, errSub string
		opts              Options
	}{
		{"no agents dir", empty, "is not an OpenClaw state directory", Options{}},
		{"no sessions.json", noIndex, "no agents/<agentId>/agent/openclaw-agent.sqlite or agents/<agentId>/sessions/sessions.json", Options{}},
		{"not an object", notObject, "invalid JSON at line 2, column 1 (byte 2): want an object", Options{}},
		{"negative batch", notObject, "BatchSize is -1", Options{BatchSize: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Import(ctx, st, tt.dir, tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.errSub) {
				t.Fatalf("err = %v, want %q", err, tt.errSub)
			}
		})
	}
}

func TestImportOptions(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	var progress [][2]int
	mirror := transcript.New(t.TempDir(), nil)
	opts := Options{
		Now:       func() time.Time { return fixedNow },
		BatchSize: 2,
		Canonical: func(key, agentID string) (string, error) {
			k, err := DefaultCanonical(key, agentID)
			return strings.ReplaceAll(k, "legacy-direct", "telegram:direct:42"), err
		},
		Kind:     func(string) string { return "custom" },
		Progress: func(done, total int) { progress = append(progress, [2]int{done, total}) },
		Mirror:   mirror,
	}
	sum, err := Import(ctx, st, filepath.Join("testdata", "openclaw"), opts)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][2]int{{2, 6}, {4, 6}, {6, 6}}, progress); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
	s, err := st.GetSession(ctx, "agent:main:telegram:direct:42")
	if err != nil || s.Kind != "custom" {
		t.Errorf("custom canonical/kind: %+v, %v", s, err)
	}
	// The mirror holds what the store holds, ids included.
	_, entries, _, err := transcript.ReadFile(mirror.Path("main", "0b0e8a41-6c1d-4c57-9a52-2b1f3f7f0001"))
	if err != nil {
		t.Fatal(err)
	}
	stored, _ := st.ReadMessages(ctx, "agent:main:main", domain.MessageQuery{})
	if len(entries) != len(stored) || entries[0].ID != stored[0].ID || entries[3].ParentID != stored[2].ID {
		t.Errorf("mirror entries %d vs stored %d", len(entries), len(stored))
	}
	if sum.Sessions != 6 {
		t.Errorf("sessions = %d", sum.Sessions)
	}
}

func TestSummaryString(t *testing.T) {
	s := newSummary()
	s.Agents, s.Sessions, s.Messages, s.LinesSkipped = 2, 5, 40, 1
	s.skip(reasonUnchanged, "")
	s.skip(reasonInvalidKey, "bad key")
	got := s.String()
	for _, want := range []string{"imported 5 sessions and 40 messages from 2 agents; 2 sessions skipped; 1 transcript lines skipped",
		"invalid key:", "unchanged:", "warnings:\n  bad key"} {
		if !strings.Contains(got, want) {
			t.Errorf("String() lacks %q:\n%s", want, got)
		}
	}
	for range maxWarnings + 3 {
		s.warn("w")
	}
	if len(s.Warnings) != maxWarnings || !strings.Contains(s.String(), "… and 4 more") {
		t.Errorf("warnings not capped: %d\n%s", len(s.Warnings), s.String())
	}
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		writeFile(t, filepath.Join(dst, rel), string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}
