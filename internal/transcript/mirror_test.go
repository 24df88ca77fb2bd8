package transcript

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/switchboard-go/switchboard/internal/domain"
)

var fixedNow = time.Date(2026, 4, 1, 10, 0, 0, 0, time.UTC)

func userMsg(id, parent, text string, ts int64) domain.Message {
	return domain.Message{ID: id, ParentID: parent, Role: domain.RoleUser, Content: domain.TextContent(text), Timestamp: ts}
}

func TestMirrorAppendRoundTrip(t *testing.T) {
	dir := t.TempDir()
	m := New(dir, func() time.Time { return fixedNow })
	m.Workspace = func(agentID string) string { return "/ws/" + agentID }

	first := []domain.Message{
		userMsg("00000001", "", "hello <b>", 1775037601000),
		{ID: "00000002", ParentID: "00000001", Role: domain.RoleAssistant,
			Content: domain.BlockContent(domain.TextBlock("hi"), domain.Block{Type: domain.BlockToolCall, ID: "c1", Name: "sessions_list", Arguments: []byte(`{"limit":5}`)}),
			Usage:   &domain.Usage{Input: 10, Output: 2, TotalTokens: 12}, StopReason: domain.StopReasonToolUse, Timestamp: 1775037602000},
	}
	second := []domain.Message{
		{ID: "00000003", ParentID: "00000002", Role: domain.RoleToolResult, ToolCallID: "c1", ToolName: "sessions_list",
			Content: domain.BlockContent(domain.TextBlock("[]")), IsError: domain.Bool(false), Timestamp: 1775037603000},
	}
	if err := m.Append("main", "sess-1", first); err != nil {
		t.Fatal(err)
	}
	if err := m.Append("main", "sess-1", second); err != nil {
		t.Fatal(err)
	}
	path := m.Path("main", "sess-1")
	if want := filepath.Join(dir, "agents", "main", "sessions", "sess-1.jsonl"); path != want {
		t.Errorf("Path = %s, want %s", path, want)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode = %v, want 0600", fi.Mode().Perm())
	}
	di, err := os.Stat(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	if di.Mode().Perm() != 0o700 {
		t.Errorf("dir mode = %v, want 0700", di.Mode().Perm())
	}

	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	wantLines := []string{
		`{"type":"session","version":3,"id":"sess-1","timestamp":"2026-04-01T10:00:00.000Z","cwd":"/ws/main"}`,
		`{"type":"message","id":"00000001","parentId":null,"timestamp":"2026-04-01T10:00:01.000Z","message":{"role":"user","content":"hello <b>","timestamp":1775037601000}}`,
		`{"type":"message","id":"00000002","parentId":"00000001","timestamp":"2026-04-01T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"hi"},{"type":"toolCall","id":"c1","name":"sessions_list","arguments":{"limit":5}}],"timestamp":1775037602000,"usage":{"input":10,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":12},"stopReason":"toolUse"}}`,
		`{"type":"message","id":"00000003","parentId":"00000002","timestamp":"2026-04-01T10:00:03.000Z","message":{"role":"toolResult","content":[{"type":"text","text":"[]"}],"timestamp":1775037603000,"toolCallId":"c1","toolName":"sessions_list","isError":false}}`,
	}
	if diff := cmp.Diff(wantLines, lines); diff != "" {
		t.Errorf("file lines (-want +got):\n%s", diff)
	}

	h, entries, st, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if h.ID != "sess-1" || h.Version != Version || st.Skipped != 0 {
		t.Errorf("header %+v stats %+v", h, st)
	}
	got := Messages(ActiveBranch(entries))
	want := append(append([]domain.Message(nil), first...), second...)
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(domain.Content{})); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestMirrorFillsMissingIDsAndTimestamps(t *testing.T) {
	m := New(t.TempDir(), func() time.Time { return fixedNow })
	msgs := []domain.Message{userMsg("", "", "a", 0), userMsg("", "", "b", 0)}
	if err := m.Append("main", "s", msgs); err != nil {
		t.Fatal(err)
	}
	_, entries, _, err := ReadFile(m.Path("main", "s"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || len(entries[0].ID) != 8 || entries[0].ParentID != "" || entries[1].ParentID != entries[0].ID {
		t.Fatalf("entries = %+v", entries)
	}
	if !entries[0].Time.Equal(fixedNow) {
		t.Errorf("time = %v, want %v", entries[0].Time, fixedNow)
	}
	if len(ActiveBranch(entries)) != 2 {
		t.Errorf("generated ids do not chain")
	}
}

func TestMirrorRecoversFromPartialLine(t *testing.T) {
	m := New(t.TempDir(), nil)
	if err := m.Append("main", "s", []domain.Message{userMsg("00000001", "", "a", 1)}); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(m.Path("main", "s"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"type":"message","id":"dead`); err != nil { // a crash mid-write
		t.Fatal(err)
	}
	f.Close()
	// The process that crashed is gone: a new mirror appends next.
	m.Close()
	m = New(filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(m.Path("main", "s"))))), nil)
	if err := m.Append("main", "s", []domain.Message{userMsg("00000002", "00000001", "b", 2)}); err != nil {
		t.Fatal(err)
	}
	_, entries, st, err := ReadFile(m.Path("main", "s"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || st.Skipped != 1 || entries[1].ID != "00000002" {
		t.Fatalf("entries %+v stats %+v", entries, st)
	}
}

func TestMirrorConcurrentAppends(t *testing.T) {
	m := New(t.TempDir(), nil)
	const writers, batches = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, writers*batches)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range batches {
				// Every writer hits the shared file and its own file.
				msg := []domain.Message{userMsg("", "", fmt.Sprintf("w%d b%d", w, b), 1), userMsg("", "", "x", 2)}
				if err := m.Append("main", "shared", msg); err != nil {
					errs <- err
				}
				if err := m.Append("main", fmt.Sprintf("own-%d", w), msg); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	_, entries, st, err := ReadFile(m.Path("main", "shared"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Skipped != 0 || len(entries) != writers*batches*2 || st.Lines != writers*batches*2+1 {
		t.Fatalf("shared file: %d entries, stats %+v", len(entries), st)
	}
	// Each batch is one write, so its two lines stay adjacent.
	for i := 0; i < len(entries); i += 2 {
		if entries[i+1].Message.Content.Text() != "x" {
			t.Fatalf("batch split at entry %d", i)
		}
	}
	for w := range writers {
		_, entries, _, err := ReadFile(m.Path("main", fmt.Sprintf("own-%d", w)))
		if err != nil || len(entries) != batches*2 {
			t.Fatalf("own-%d: %d entries, err %v", w, len(entries), err)
		}
	}
	if n := m.locks.Len(); n != 0 {
		t.Errorf("lock map holds %d entries after all writers left", n)
	}
}

func TestMirrorArchiveAndRemove(t *testing.T) {
	m := New(t.TempDir(), nil)
	msg := []domain.Message{userMsg("00000001", "", "a", 1)}
	if err := m.Append("main", "s", msg); err != nil {
		t.Fatal(err)
	}
	ts := time.Date(2026, 4, 2, 3, 4, 5, 6_000_000, time.UTC)
	if err := m.Archive("main", "s", ts); err != nil {
		t.Fatal(err)
	}
	archived := m.ArchivePath("main", "s", ts)
	if !strings.HasSuffix(archived, "s.jsonl.reset.2026-04-02T03-04-05.006Z") {
		t.Errorf("archive path = %s", archived)
	}
	if _, err := os.Stat(archived); err != nil {
		t.Errorf("archived file: %v", err)
	}
	if _, err := os.Stat(m.Path("main", "s")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("original still there: %v", err)
	}
	if err := m.Archive("main", "s", ts); err != nil {
		t.Errorf("archive of a missing file: %v", err)
	}

	if err := m.Append("main", "s", msg); err != nil {
		t.Fatal(err)
	}
	if err := m.Remove("main", "s"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(m.Path("main", "s")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("removed file still there: %v", err)
	}
	if err := m.Remove("main", "s"); err != nil {
		t.Errorf("remove of a missing file: %v", err)
	}
}

func TestMirrorRejectsBadIDs(t *testing.T) {
	m := New(t.TempDir(), nil)
	msg := []domain.Message{userMsg("", "", "a", 1)}
	tests := []struct {
		agent, session, errSub string
	}{
		{"", "s", "agentId is empty"},
		{"main", "", "sessionId is empty"},
		{"..", "s", `agentId ".." is not a valid file name`},
		{"main", "../../etc/x", "sessionId \"../../etc/x\" contains a path separator"},
		{"main", strings.Repeat("a", 300), "sessionId is 300 bytes, longer than the limit of 255"},
	}
	for _, tt := range tests {
		t.Run(tt.errSub, func(t *testing.T) {
			for name, err := range map[string]error{
				"append":  m.Append(tt.agent, tt.session, msg),
				"remove":  m.Remove(tt.agent, tt.session),
				"archive": m.Archive(tt.agent, tt.session, fixedNow),
			} {
				if err == nil || !strings.Contains(err.Error(), tt.errSub) {
					t.Errorf("%s: err = %v, want %q", name, err, tt.errSub)
				}
				if domain.ErrorCode(err) != domain.CodeInvalid {
					t.Errorf("%s: code = %s", name, domain.ErrorCode(err))
				}
			}
		})
	}
}

func TestMirrorEmptyBatchCreatesNothing(t *testing.T) {
	m := New(t.TempDir(), nil)
	if err := m.Append("main", "s", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(m.Path("main", "s")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("empty append created a file: %v", err)
	}
}

func TestEncodeMatchesMirror(t *testing.T) {
	m := New(t.TempDir(), func() time.Time { return fixedNow })
	msgs := []domain.Message{userMsg("00000001", "", "a", 1775037601000), userMsg("00000002", "00000001", "b", 0)}
	if err := m.Append("main", "s", msgs); err != nil {
		t.Fatal(err)
	}
	fromMirror, err := os.ReadFile(m.Path("main", "s"))
	if err != nil {
		t.Fatal(err)
	}
	encoded, err := Encode(Header{ID: "s", Timestamp: FormatTime(fixedNow), Cwd: m.stateDir}, msgs)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(fromMirror), string(encoded)); diff != "" {
		t.Errorf("Encode differs from Mirror.Append (-mirror +encode):\n%s", diff)
	}
}
