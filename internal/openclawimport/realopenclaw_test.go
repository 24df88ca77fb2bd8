package openclawimport

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/testkit"
)

// realOpenClaw runs OpenClaw's own CLI (npm openclaw@2026.9.6 with Node
// 24, as .ci/run installs them) with a throwaway HOME, or skips the test
// unless SWITCHBOARD_REAL_CLIENTS=1.
type realOpenClaw struct {
	t    *testing.T
	node string
	cli  string
	fake *fakeModel
}

func newRealOpenClaw(t *testing.T) *realOpenClaw {
	t.Helper()
	testkit.RealClients(t, "set SWITCHBOARD_REAL_CLIENTS=1 to run OpenClaw's own CLI (installed by .ci/run)")
	oc := &realOpenClaw{t: t, node: testkit.Node(t), cli: filepath.Join(testkit.NodeModules(t), "openclaw", "openclaw.mjs")}
	for _, p := range []string{oc.node, oc.cli} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("OpenClaw or Node 24 not installed (run .ci/run or npm ci in test/realclients): %v", err)
		}
	}
	oc.fake = newFakeModel(t)
	return oc
}

// home makes a HOME whose OpenClaw state dir is stateDir (created by the
// caller or by OpenClaw) and writes the config naming the fake model.
func (oc *realOpenClaw) home(stateDir string) string {
	oc.t.Helper()
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		oc.t.Fatal(err)
	}
	cfg := fmt.Sprintf(`{"models":{"providers":{"fake":{"baseUrl":%q,"apiKey":"sk-test","api":"openai-completions",`+
		`"models":[{"id":"m1","name":"Fake M1","contextWindow":128000,"maxTokens":4096}]}}},`+
		`"agents":{"defaults":{"model":{"primary":"fake/m1"}}}}`, oc.fake.srv.URL+"/v1")
	if err := os.WriteFile(filepath.Join(stateDir, "openclaw.json"), []byte(cfg), 0o600); err != nil {
		oc.t.Fatal(err)
	}
	return filepath.Dir(stateDir)
}

// run runs `openclaw ARGS…` with HOME home and returns its stdout.
func (oc *realOpenClaw) run(home string, args ...string) string {
	stdout, _ := oc.run2(home, args...)
	return stdout
}

// run2 is run returning stderr too.
func (oc *realOpenClaw) run2(home string, args ...string) (string, string) {
	stdout, stderr, err := oc.try(home, args...)
	if err != nil {
		oc.t.Fatalf("openclaw %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, stdout, lastBytes(stderr, 4000))
	}
	return stdout, stderr
}

// try runs `openclaw ARGS…` and returns its output and exit error.
func (oc *realOpenClaw) try(home string, args ...string) (string, string, error) {
	oc.t.Helper()
	// A run answers in seconds on an idle machine; on a loaded one
	// OpenClaw's own start-up and maintenance took minutes.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, oc.node, append([]string{oc.cli}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+home, "OPENCLAW_STATE_DIR="+filepath.Join(home, ".openclaw"), "NO_COLOR=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

func lastBytes(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// fakeModel is an OpenAI-compatible chat completions server: every
// streamed request is answered "reply number N" (N counts requests), with
// usage, and its body is kept.
type fakeModel struct {
	srv    *httptest.Server
	mu     sync.Mutex
	bodies []string
}

func newFakeModel(t *testing.T) *fakeModel {
	f := &fakeModel{}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeModel) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.NotFound(w, r)
		return
	}
	f.mu.Lock()
	f.bodies = append(f.bodies, string(body))
	n := len(f.bodies)
	f.mu.Unlock()
	var req struct {
		Model string `json:"model"`
	}
	_ = json.Unmarshal(body, &req)
	id := fmt.Sprintf("chatcmpl-%d", n)
	chunk := func(v map[string]any) {
		v["id"], v["object"], v["created"], v["model"] = id, "chat.completion.chunk", 1, req.Model
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	choice := func(delta map[string]any, finish any) []any {
		return []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}
	}
	chunk(map[string]any{"choices": choice(map[string]any{"role": "assistant", "content": ""}, nil)})
	chunk(map[string]any{"choices": choice(map[string]any{"content": fmt.Sprintf("reply number %d", n)}, nil)})
	chunk(map[string]any{"choices": choice(map[string]any{}, "stop")})
	chunk(map[string]any{"choices": []any{}, "usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13}})
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func (f *fakeModel) last() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.bodies) == 0 {
		return ""
	}
	return f.bodies[len(f.bodies)-1]
}

// TestRealOpenClawRoundTrip: OpenClaw 2026.9.6 writes a Telegram group
// session into its agent database; switchboard imports it, exports it to
// a new SQLite-layout state; OpenClaw lists the exported sessions and
// continues the group session from the exported transcript (the model
// sees the earlier turn); importing that state again appends only the new
// turn.
func TestRealOpenClawRoundTrip(t *testing.T) {
	oc := newRealOpenClaw(t)
	ctx := context.Background()

	// OpenClaw writes the state.
	ocState := filepath.Join(t.TempDir(), ".openclaw")
	home := oc.home(ocState)
	oc.run(home, "agent", "--local", "--session-key", telegramKey, "--message", "hi")
	st := openStore(t)
	sum, err := Import(ctx, st, ocState, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Sessions != 1 || sum.Messages != 2 {
		t.Fatalf("import of OpenClaw's state: %+v", sum)
	}
	row, err := st.GetSession(ctx, telegramKey)
	if err != nil {
		t.Fatal(err)
	}
	if row.Kind != domain.KindGroup || row.Channel != "telegram" || row.Model != "m1" || row.ModelProvider != "fake" {
		t.Errorf("row = %+v", row)
	}
	msgs, err := st.ReadMessages(ctx, telegramKey, domain.MessageQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(brief(msgs), "|"); got != "user: hi|assistant: reply number 1" {
		t.Fatalf("transcript = %s", got)
	}
	if u := msgs[1].Usage; u == nil || u.Input != 10 || u.Output != 3 {
		t.Errorf("usage = %+v", msgs[1].Usage)
	}

	// switchboard exports; OpenClaw reads it.
	out := filepath.Join(t.TempDir(), ".openclaw")
	if _, err := Export(ctx, st, out, ExportOptions{Layout: LayoutSQLite}); err != nil {
		t.Fatal(err)
	}
	home2 := oc.home(out)
	listed := oc.run(home2, "sessions", "--json", "--all-agents")
	var list struct {
		Sessions []struct {
			Key       string `json:"key"`
			SessionID string `json:"sessionId"`
		} `json:"sessions"`
	}
	if i := strings.Index(listed, "{"); i < 0 || json.Unmarshal([]byte(listed[i:]), &list) != nil {
		t.Fatalf("openclaw sessions --json: %s", listed)
	}
	if len(list.Sessions) != 1 || list.Sessions[0].Key != telegramKey || list.Sessions[0].SessionID != row.SessionID {
		t.Fatalf("OpenClaw lists %+v, want %s (%s)", list.Sessions, telegramKey, row.SessionID)
	}
	oc.run(home2, "agent", "--local", "--session-key", telegramKey, "--message", "continued after export")
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(oc.fake.last()), &req); err != nil {
		t.Fatal(err)
	}
	var seen []string
	for _, m := range req.Messages {
		if m.Role != "system" {
			seen = append(seen, m.Role+": "+string(m.Content))
		}
	}
	history := strings.Join(seen, "\n")
	for _, want := range []string{"hi", "reply number 1", "continued after export"} {
		if !strings.Contains(history, want) {
			t.Fatalf("the model's request after the export lacks %q; OpenClaw did not read the exported transcript:\n%s", want, history)
		}
	}

	// The session went on in OpenClaw; a second import takes the new turn.
	again, err := Import(ctx, st, out, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if again.Messages != 2 {
		t.Fatalf("import after OpenClaw continued: %+v", again)
	}
	msgs, err = st.ReadMessages(ctx, telegramKey, domain.MessageQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(brief(msgs), "|"); got != "user: hi|assistant: reply number 1|user: continued after export|assistant: reply number 2" {
		t.Fatalf("transcript after the second import = %s", got)
	}
}

// TestRealOpenClawMigratesJSONExport: OpenClaw 2026.9.6 reads the JSON
// layout only through its legacy migration (`openclaw doctor --fix`),
// which must take every exported session and transcript event into its
// agent database; it then lists them.
func TestRealOpenClawMigratesJSONExport(t *testing.T) {
	oc := newRealOpenClaw(t)
	ctx := context.Background()
	st := openStore(t)
	if _, err := Import(ctx, st, copyState(t, realState), testOptions()); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), ".openclaw")
	sum, err := Export(ctx, st, out, ExportOptions{Layout: LayoutJSON})
	if err != nil {
		t.Fatal(err)
	}
	home := oc.home(out)
	// On a loaded machine OpenClaw's doctor can give up waiting for its
	// own maintenance lease ("heartbeat did not become ready") before
	// migrating anything; it says to retry, and a retry starts clean.
	var doctor string
	for attempt := 1; ; attempt++ {
		stdout, stderr, err := oc.try(home, "doctor", "--fix", "--non-interactive")
		doctor = stdout + stderr
		if err == nil {
			break
		}
		if attempt == 3 || !strings.Contains(doctor, "did not become ready") {
			t.Fatalf("openclaw doctor --fix: %v\n%s", err, lastBytes(doctor, 4000))
		}
		t.Logf("openclaw doctor --fix, attempt %d: OpenClaw's maintenance lease timed out; retrying", attempt)
	}
	// One header event per transcript plus one per message.
	want := fmt.Sprintf("Transcript events: imported=%d", sum.Sessions+sum.Messages)
	if !strings.Contains(doctor, fmt.Sprintf("Legacy entries: %d", sum.Sessions)) || !strings.Contains(doctor, want) {
		t.Fatalf("openclaw doctor --fix did not migrate the export (want %q):\n%s", want, doctor)
	}
	listed := oc.run(home, "sessions", "--json", "--all-agents")
	var list struct {
		Sessions []struct {
			Key string `json:"key"`
		} `json:"sessions"`
	}
	if i := strings.Index(listed, "{"); i < 0 || json.Unmarshal([]byte(listed[i:]), &list) != nil {
		t.Fatalf("openclaw sessions --json: %s", listed)
	}
	keys := map[string]bool{}
	for _, s := range list.Sessions {
		keys[s.Key] = true
	}
	for _, k := range []string{telegramKey, "agent:main:main", "agent:main:cron:daily-report"} {
		if !keys[k] {
			t.Errorf("OpenClaw does not list %s after migrating the export: %v", k, keys)
		}
	}
}
