package realclients

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	crab "github.com/switchboard-go/switchboard/internal/channels/crabline"
	"github.com/switchboard-go/switchboard/internal/testkit"
)

// streamConfig is a gateway config whose script model streams its
// replies in small pieces, with a Telegram block pointed at crabline.
func streamConfig(m crablineManifest, telegram string) string {
	long := strings.Repeat("word ", 1100) // two messages
	return fmt.Sprintf(`{
  agents: { defaults: { model: "script" } },
  models: { providers: { script: { rules: [
    { when: { message: "stream please" }, reply: %q, chunkChars: 8, chunkMs: 250 },
    { when: { message: "long stream" }, reply: %q, chunkChars: 1200, chunkMs: 600 },
  ] } } },
  channels: { telegram: { botToken: %q, apiRoot: %q, dmPolicy: "open", allowFrom: ["*"], %s } },
}`, streamedReply, long, m.BotToken, m.Endpoints.APIRoot, telegram)
}

const streamedReply = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen"

// edits returns the texts of the recorded editMessageText calls.
func (m crablineManifest) edits(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, c := range m.Calls(t, func(c crab.Call) bool { return strings.HasSuffix(c.Path, "/editMessageText") }) {
		s, _ := c.Body["text"].(string)
		out = append(out, s)
	}
	return out
}

// With streaming.mode "partial" a reply is one sendMessage edited as it
// grows, the last edit being the final text; with the legacy streamMode
// too, and with neither (OpenClaw's default is "partial").
func TestTelegramStreamingEdits(t *testing.T) {
	for _, key := range []string{`streaming: { mode: "partial" }`, `streamMode: "partial"`, `name: "default mode"`} {
		t.Run(key, func(t *testing.T) {
			m := crabline(t)
			startChannelGateway(t, t.TempDir(), streamConfig(m, key))
			m.inject(t, map[string]any{"chatId": 4242, "fromId": 4242, "text": "stream please"})
			testkit.WaitFor(t, 30*time.Second, "the final edit", func() bool {
				e := m.edits(t)
				return len(e) > 0 && e[len(e)-1] == streamedReply
			})
			sends := m.sends(t)
			if len(sends) != 1 {
				t.Fatalf("%d sendMessage calls, want 1: %+v", len(sends), sends)
			}
			if first := sends[0].Text; first == streamedReply || !strings.HasPrefix(streamedReply, first) {
				t.Errorf("the streamed message began as %q, want a part of the reply", first)
			}
			edits := m.edits(t)
			for i, e := range edits[:len(edits)-1] {
				if !strings.HasPrefix(streamedReply, e) {
					t.Errorf("edit %d shows %q, not a part of the reply", i, e)
				}
			}
			for i := 1; i < len(edits); i++ {
				if edits[i] == edits[i-1] {
					t.Errorf("edit %d repeats the text %q", i, edits[i])
				}
			}
		})
	}
}

// Mode off sends the reply once and edits nothing.
func TestTelegramStreamingOff(t *testing.T) {
	m := crabline(t)
	startChannelGateway(t, t.TempDir(), streamConfig(m, `streaming: { mode: "off" }`))
	m.inject(t, map[string]any{"chatId": 4242, "fromId": 4242, "text": "stream please"})
	m.waitSend(t, streamedReply)
	m.inject(t, map[string]any{"chatId": 4242, "fromId": 4242, "text": "hello after"})
	m.waitSend(t, "hello after")
	if n := len(m.sends(t)); n != 2 {
		t.Errorf("%d sendMessage calls, want 2", n)
	}
	if e := m.edits(t); len(e) != 0 {
		t.Errorf("mode off edited %d times", len(e))
	}
}

// A streamed reply longer than Telegram's limit streams its first part;
// the rest follows as a new message at the end.
func TestTelegramStreamingLongReply(t *testing.T) {
	m := crabline(t)
	startChannelGateway(t, t.TempDir(), streamConfig(m, `streaming: { mode: "partial" }`))
	m.inject(t, map[string]any{"chatId": 4242, "fromId": 4242, "text": "long stream"})
	testkit.WaitFor(t, 60*time.Second, "the rest of the reply", func() bool { return len(m.sends(t)) >= 2 })
	sends, edits := m.sends(t), m.edits(t)
	if len(sends) != 2 || len(edits) == 0 {
		t.Fatalf("%d sends and %d edits, want 2 sends and some edits", len(sends), len(edits))
	}
	final := edits[len(edits)-1]
	for _, s := range []string{sends[1].Text, final} {
		if n := len(utf16.Encode([]rune(s))); n > 4096 {
			t.Errorf("a message has %d UTF-16 units", n)
		}
	}
	if total := strings.Count(final, "word") + strings.Count(sends[1].Text, "word"); total != 1100 {
		t.Errorf("the edited message and the rest hold %d words, want 1100", total)
	}
}
