package realclients

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	crab "github.com/switchboard-go/switchboard/internal/channels/crabline"
	"github.com/switchboard-go/switchboard/internal/testkit"
)

// ocSession is one session of an OpenClaw state dir: its index entry and
// a question and answer in its transcript.
type ocSession struct {
	key, id  string
	entry    map[string]any
	question string
	answer   string
}

// openclawState writes an OpenClaw state dir (agent main) holding rows.
func openclawState(t *testing.T, rows ...ocSession) string {
	t.Helper()
	dir := t.TempDir()
	sessions := filepath.Join(dir, "agents", "main", "sessions")
	if err := os.MkdirAll(sessions, 0o700); err != nil {
		t.Fatal(err)
	}
	index := map[string]any{}
	for _, r := range rows {
		e := map[string]any{"sessionId": r.id, "updatedAt": 1775037500000}
		for k, v := range r.entry {
			e[k] = v
		}
		index[r.key] = e
		transcript := fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":"2026-04-01T09:58:00.000Z","cwd":"/w"}
{"type":"message","id":"d0000001","parentId":null,"timestamp":"2026-04-01T09:58:10.000Z","message":{"role":"user","content":%q,"timestamp":1775037490000}}
{"type":"message","id":"d0000002","parentId":"d0000001","timestamp":"2026-04-01T09:58:20.000Z","message":{"role":"assistant","content":[{"type":"text","text":%q}],"stopReason":"stop","timestamp":1775037500000}}
`, r.id, r.question, r.answer)
		if err := os.WriteFile(filepath.Join(sessions, r.id+".jsonl"), []byte(transcript), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := json.Marshal(index)
	if err := os.WriteFile(filepath.Join(sessions, "sessions.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// history prints a session's transcript through the CLI.
func history(t *testing.T, stateDir, key string) string {
	t.Helper()
	cmd := exec.Command(testkit.Binary(t), "sessions", "history", "--json", "--state-dir", stateDir, key)
	cmd.Env = append(os.Environ(), "SWITCHBOARD_GATEWAY_TOKEN="+token)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("history %s: %v\n%s", key, err, out)
	}
	return string(out)
}

// inOrder reports whether every string appears in s, each after the one
// before it.
func inOrder(s string, parts ...string) bool {
	at := 0
	for _, p := range parts {
		i := strings.Index(s[at:], p)
		if i < 0 {
			return false
		}
		at += i + len(p)
	}
	return true
}

// An OpenClaw state dir with a Discord guild channel session and a thread
// session keyed by the thread's own channel id, imported, then new
// messages in that channel and thread continue the same rows: the
// imported history followed by the new turn.
func TestDiscordImportThenContinue(t *testing.T) {
	c := crab.Start(t, "discord")
	const thread = "135000000000000031"
	chanKey := "agent:main:discord:channel:" + c.Fixture.ChannelID
	threadKey := "agent:main:discord:channel:" + thread
	chanSID, threadSID := "0b0e8a41-6c1d-4c57-9a52-2b1f3f7f0201", "0b0e8a41-6c1d-4c57-9a52-2b1f3f7f0202"
	oc := openclawState(t,
		ocSession{key: chanKey, id: chanSID, question: "imported channel question", answer: "imported channel answer",
			entry: map[string]any{"chatType": "channel", "channel": "discord", "lastChannel": "discord", "lastTo": "channel:" + c.Fixture.ChannelID,
				"displayName": "Crabline Discord Guild#crabline-channel", "origin": map[string]any{"provider": "discord"}}},
		ocSession{key: threadKey, id: threadSID, question: "imported thread question", answer: "imported thread answer",
			entry: map[string]any{"chatType": "channel", "channel": "discord", "lastChannel": "discord", "lastTo": "channel:" + thread}})
	state := t.TempDir()
	t.Setenv("SB_TEST_DISCORD_TOKEN", c.BotToken)
	cfg := map[string]any{"channels": map[string]any{"discord": map[string]any{
		"token":   map[string]any{"source": "env", "provider": "default", "id": "SB_TEST_DISCORD_TOKEN"},
		"apiRoot": c.BaseURL + "/api", "gatewayUrl": c.Endpoints.GatewayURL,
		"groupPolicy": "open", "guilds": map[string]any{c.Fixture.GuildID: map[string]any{"requireMention": false}},
	}}}
	b, _ := json.Marshal(cfg)
	if err := os.WriteFile(filepath.Join(state, "switchboard.json5"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(testkit.Binary(t), "import", "openclaw", "--state-dir", state, oc).CombinedOutput(); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	base := gateway(t, state)
	// A message crabline gets before the bot's gateway session is lost, as
	// on Discord.
	crab.WaitFor(t, "the bot to identify", func() bool {
		return len(c.Calls(t, func(r crab.Call) bool { return r.Method == "WS" && r.Body["op"] == float64(2) })) == 1
	})
	c.Inject(t, map[string]any{"channelId": c.Fixture.ChannelID, "guildId": c.Fixture.GuildID, "senderId": "135000000000000202",
		"senderName": "ada", "content": "a new channel question"})
	crab.WaitFor(t, "the channel reply", func() bool { return c.DiscordPosted(t, c.Fixture.ChannelID, "echo: ada: a new channel question") })
	c.Inject(t, map[string]any{"channelId": thread, "parentChannelId": c.Fixture.ChannelID, "guildId": c.Fixture.GuildID,
		"senderId": "135000000000000202", "senderName": "ada", "content": "a new thread question"})
	crab.WaitFor(t, "the thread reply", func() bool { return c.DiscordPosted(t, thread, "echo: ada: a new thread question") })

	for _, tc := range []struct{ key, sid, prefix, fresh string }{
		{chanKey, chanSID, "imported channel", "a new channel question"},
		{threadKey, threadSID, "imported thread", "a new thread question"},
	} {
		if s := session(t, base, tc.key); s["sessionId"] != tc.sid {
			t.Errorf("%s after the new message: %v (want sessionId %s)", tc.key, s, tc.sid)
		}
		if h := history(t, state, tc.key); !inOrder(h, tc.prefix+" question", tc.prefix+" answer", tc.fresh) {
			t.Errorf("%s: history is not the imported turns then the new one:\n%s", tc.key, h)
		}
	}
	// One row per chat: the thread did not start a row of its own.
	if sessionExists(t, base, "agent:main:discord:channel:"+c.Fixture.ChannelID+":thread:"+thread) {
		t.Error("the thread's message made a new row instead of continuing the imported one")
	}
}

// sessionExists reports whether the gateway has a row keyed key.
func sessionExists(t *testing.T, base, key string) bool {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+"/api/sessions/"+url.PathEscape(key), nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}
