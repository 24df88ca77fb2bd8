package realclients

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/channels/bluebubbles/bbtest"
	"github.com/switchboard-go/switchboard/internal/testkit"
)

// Files through the gateway on iMessage: `switchboard send --file` leaves
// as a BlueBubbles attachment after its text, and a received photo is
// downloaded from the server and reaches the agent as an attached file.
func TestIMessageFiles(t *testing.T) {
	testkit.RealClients(t, "the gateway binary test needs SWITCHBOARD_REAL_CLIENTS=1")
	bb := bbtest.New(t, bbPassword)
	const chat = "iMessage;-;+15551234567"
	bbPort := freePort(t)
	cfg := fmt.Sprintf(`{
  agents: { defaults: { model: "script" } },
  models: { providers: { script: { rules: [
    { when: { role: "user", message: "media attached: .*IMG_0001.jpeg" }, reply: "got the receipt" },
  ] } } },
  channels: { bluebubbles: { serverUrl: %q, password: %q, webhookPort: %d, dmPolicy: "open", allowFrom: ["*"] } },
}`, bb.URL, bbPassword, bbPort)
	state := t.TempDir()
	startChannelGateway(t, state, cfg)
	hook := fmt.Sprintf("http://127.0.0.1:%d/bluebubbles-webhook?password=%s", bbPort, bbPassword)
	waitBlueBubblesHook(t, hook)

	file := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(file, []byte("three lines"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := cli(t, state, "send", "--channel", "bluebubbles", "--to", "bluebubbles:chat_guid:"+chat, "--file", file, "the notes")
	if !strings.Contains(out, "queued") {
		t.Errorf("send --file printed %q", out)
	}
	testkit.WaitFor(t, 30*time.Second, "the attachment", func() bool { return len(bb.Attachments()) == 1 })
	if a := bb.Attachments()[0]; a.ChatGUID != chat || a.Name != "notes.txt" || string(a.Data) != "three lines" {
		t.Errorf("attachment %+v", a)
	}
	if n := bb.Sent(chat, "the notes"); n != 1 {
		t.Errorf("the text went %d times, want 1", n)
	}

	bb.Serve("at_0_C0FFEE00-0000-4000-8000-000000000003", "image/jpeg", []byte{0xff, 0xd8, 0xff, 0xe0})
	postBlueBubbles(t, hook, bbtest.File(t, "new-message-attachment.json"))
	testkit.WaitFor(t, 30*time.Second, "the reply to the photo", func() bool { return bb.Sent(chat, "got the receipt") == 1 })
	if bb.Downloads() != 1 {
		t.Errorf("%d downloads, want 1", bb.Downloads())
	}
}
