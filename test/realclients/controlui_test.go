package realclients

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/testkit"
)

// controlUIConfig serves the Control UI of the installed OpenClaw package
// and makes the script model stream its answer in pieces.
const controlUIConfig = `{
  gateway: { controlUi: { root: %q } },
  agents: { list: [{ id: "main", name: "Main", default: true }] },
  models: { providers: { script: { rules: [
    { when: { message: "^stream " }, reply: "Streaming: one two three four five six seven eight nine ten.", chunkChars: 6, chunkMs: 150 },
    { when: { message: "standup" }, reply: "Standup: all green." },
  ] } } },
}
`

// TestOpenClawControlUI serves OpenClaw's own Control UI (dist/control-ui
// of the npm package) from switchboard and drives it in headless
// Chromium: it connects, lists the sessions, opens a transcript, sends a
// chat and shows the reply as it streams, then once the final is in and
// the UI's history reloads are answered, the sent message and the reply
// once each (the stored
// copies, recognized by OpenClaw's message identity, replace the UI's
// own) and no "Sending message..." — without reopening the pane.
func TestOpenClawControlUI(t *testing.T) {
	const why = "set SWITCHBOARD_REAL_CLIENTS=1 and SWITCHBOARD_BROWSER_TESTS=1 to drive OpenClaw's Control UI in Chromium (installed by .ci/run)"
	testkit.RealClients(t, why)
	chromium := testkit.Browser(t, why)
	node := realNode(t)
	root, err := filepath.Abs("node_modules/openclaw/dist/control-ui")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "index.html")); err != nil {
		t.Fatalf("OpenClaw's Control UI is not installed (npm ci in test/realclients): %v", err)
	}
	pw, _ := filepath.Abs("../../internal/web/e2e/node_modules/playwright-core/package.json")
	if _, err := os.Stat(pw); err != nil {
		t.Fatalf("playwright-core is not installed (npm ci in internal/web/e2e): %v", err)
	}
	state := t.TempDir()
	if err := os.WriteFile(filepath.Join(state, "switchboard.json5"), []byte(fmt.Sprintf(controlUIConfig, root)), 0o600); err != nil {
		t.Fatal(err)
	}
	// A group session with a turn in it, written before the gateway starts.
	seed := exec.Command(testkit.Binary(t), "--state-dir", state, "chat", "agent:main:discord:group:eng-standup", "standup notes please")
	if out, err := seed.CombinedOutput(); err != nil || !strings.Contains(string(out), "Standup: all green.") {
		t.Fatalf("seed chat: %v\n%s", err, out)
	}
	base := gateway(t, state)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "controlui.mjs", base+"/openclaw/", token, "standup notes please", "Standup: all green.")
	cmd.Env = append(os.Environ(), "SWITCHBOARD_CHROMIUM="+chromium)
	out, err := cmd.CombinedOutput()
	text := string(out)
	t.Logf("scenario output:\n%s", text)
	if err != nil {
		t.Fatalf("Control UI scenario failed: %v", err)
	}
	for _, want := range []string{"ok - connects", "ok - lists sessions", "ok - opens a transcript",
		"ok - sends a chat and shows the streamed reply",
		`ok - shows the sent message and the reply once, without "Sending message..."`, "ok - no page errors"} {
		if !strings.Contains(text, want+"\n") {
			t.Errorf("scenario did not report %q", want)
		}
	}
	if !strings.Contains(text, "chat.send to: agent:main:discord:group:eng-standup\n") {
		t.Errorf("the chat was not sent into the opened session")
	}
	// The methods the UI needs for this flow are answered, not refused.
	for _, line := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(line, "unanswered: "); ok {
			for _, m := range strings.Fields(rest) {
				switch m {
				case "connect", "sessions.list", "chat.startup", "chat.history", "chat.send", "sessions.messages.subscribe", "sessions.subscribe":
					t.Errorf("the Control UI's %s was refused as unknown", m)
				}
			}
		}
	}
}
