package realclients

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/testkit"
)

// call makes an authenticated HTTP API call to the gateway and decodes
// its JSON answer; it returns the status code.
func (g *channelGateway) call(t *testing.T, method, path string, body, out any) int {
	t.Helper()
	var rd *bytes.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, _ := http.NewRequest(method, g.url+path, rd)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil {
		_ = json.NewDecoder(resp.Body).Decode(out)
	}
	return resp.StatusCode
}

// cli runs a switchboard command against the gateway of stateDir.
func cli(t *testing.T, stateDir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(testkit.Binary(t), append(args, "--state-dir", stateDir)...)
	cmd.Env = append(os.Environ(), "SWITCHBOARD_GATEWAY_TOKEN="+token)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("switchboard %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// runsDone reports whether a session has a finished run of kind.
func (g *channelGateway) runDone(t *testing.T, key, kind string) bool {
	var res struct {
		Runs []struct {
			Kind   string `json:"kind"`
			Status string `json:"status"`
		} `json:"runs"`
	}
	g.call(t, http.MethodGet, "/api/runs?session="+url.QueryEscape(key)+"&kind="+kind, nil, &res)
	for _, r := range res.Runs {
		if r.Kind == kind && r.Status != "queued" && r.Status != "running" {
			return true
		}
	}
	return false
}

// sendsTo counts the recorded sendMessage calls to a chat.
func (m crablineManifest) sendsTo(t *testing.T, chat string) []sent {
	var out []sent
	for _, s := range m.sends(t) {
		if s.ChatID.String() == chat {
			out = append(out, s)
		}
	}
	return out
}

// Outbound through the channel: a direct send from the API and the CLI, an
// announce step's reply into the Telegram group it targeted (and nothing
// for ANNOUNCE_SKIP), a sub-agent's announce answered in its requester's
// group, and the send policy with its per-session override from the chat
// (each override confirmed in the chat).
func TestTelegramOutbound(t *testing.T) {
	m := crabline(t)
	state := t.TempDir()
	cfg := fmt.Sprintf(`{
  agents: { defaults: { model: "script" } },
  models: { providers: { script: { rules: [
    { when: { session: "group:-1001$", system: "Agent-to-agent announce step:" }, reply: "announced to the group" },
    { when: { session: "subagent", role: "user", message: "child task" }, reply: "child result 77" },
    { when: { session: "group:-1001$", system: "Sub-agent announce:" }, reply: "the helper reported back" },
    { when: { session: "group:-1001$", role: "user", message: "spawn a helper" }, toolCall: { name: "sessions_spawn", arguments: { task: "child task" } } },
  ] } } },
  session: { owners: ["4242"], sendPolicy: { rules: [ { action: "deny", match: { keyPrefix: "telegram:group:-1003" } } ] } },
  channels: { telegram: { botToken: %q, apiRoot: %q, dmPolicy: "open", allowFrom: ["*"],
    groupPolicy: "open", groups: { "*": { requireMention: false } } } },
}`, m.BotToken, m.Endpoints.APIRoot)
	g := startChannelGateway(t, state, cfg)

	// A message straight to a chat: POST /api/send and `switchboard send --to`.
	var res map[string]any
	if code := g.call(t, http.MethodPost, "/api/send", map[string]any{"channel": "telegram", "to": "telegram:4242", "message": "from the api"}, &res); code != 200 || res["status"] != "queued" {
		t.Fatalf("POST /api/send: %d %v", code, res)
	}
	if got := m.waitSend(t, "from the api"); got.ChatID.String() != "4242" {
		t.Errorf("the API's message went to chat %s", got.ChatID)
	}
	out := cli(t, state, "send", "--channel", "telegram", "--to", "telegram:-1001", "from the cli")
	if !strings.Contains(out, "queued") {
		t.Errorf("send --to printed %q", out)
	}
	if got := m.waitSend(t, "from the cli"); got.ChatID.String() != "-1001" {
		t.Errorf("the CLI's message went to chat %s", got.ChatID)
	}

	// Group sessions exist once their chats spoke.
	for _, chat := range []int{-1001, -1002} {
		m.inject(t, map[string]any{"chatId": chat, "fromId": 4242, "fromName": "Ada", "text": fmt.Sprintf("hello %d", chat)})
		m.waitSend(t, fmt.Sprintf("hello %d", chat))
	}

	// sessions_send into the group: the announce step's reply lands there.
	cli(t, state, "send", "agent:main:telegram:group:-1001", "please announce", "--timeout", "0")
	if got := m.waitSend(t, "announced to the group"); got.ChatID.String() != "-1001" {
		t.Errorf("the announce went to chat %s", got.ChatID)
	}
	// ANNOUNCE_SKIP (the script model's default announce) sends nothing.
	before := len(m.sendsTo(t, "-1002"))
	cli(t, state, "send", "agent:main:telegram:group:-1002", "stay quiet", "--timeout", "0")
	testkit.WaitFor(t, 30*time.Second, "the announce step of -1002", func() bool {
		return g.runDone(t, "agent:main:telegram:group:-1002", "announce")
	})
	var ob struct {
		Items []struct {
			Kind string `json:"kind"`
		} `json:"items"`
	}
	g.call(t, http.MethodGet, "/api/outbox?session="+url.QueryEscape("agent:main:telegram:group:-1002"), nil, &ob)
	for _, it := range ob.Items {
		if it.Kind == "announce" {
			t.Errorf("ANNOUNCE_SKIP queued an announce: %v", ob.Items)
		}
	}

	// A sub-agent spawned from the group: its announce is answered there.
	m.inject(t, map[string]any{"chatId": -1001, "fromId": 4242, "fromName": "Ada", "text": "spawn a helper"})
	if got := m.waitSend(t, "the helper reported back"); got.ChatID.String() != "-1001" {
		t.Errorf("the spawn announce's answer went to chat %s", got.ChatID)
	}
	if n := m.countSends(t, "child result 77"); n != 0 {
		t.Errorf("the child's own reply reached a chat %d times", n)
	}

	// Send policy: a direct send into the denied group is refused, its
	// messages start no turn (and hold up nothing behind them), and the
	// owner's /send on overrides the policy for that session.
	key3 := "agent:main:telegram:group:-1003"
	if code := g.call(t, http.MethodPost, "/api/send", map[string]any{"sessionKey": key3, "channel": "telegram", "to": "telegram:-1003", "message": "refused"}, &res); code != 400 {
		t.Errorf("a send into the denied group: %d %v, want 400", code, res)
	}
	m.inject(t, map[string]any{"chatId": -1003, "fromId": 4242, "fromName": "Ada", "text": "denied one"})
	m.inject(t, map[string]any{"chatId": -1003, "fromId": 4242, "fromName": "Ada", "text": "/send on"})
	m.waitSend(t, "Send policy set to on")
	m.inject(t, map[string]any{"chatId": -1003, "fromId": 4242, "fromName": "Ada", "text": "allowed two"})
	m.waitSend(t, "allowed two")
	// /send off is confirmed in the chat it mutes (a command's answer is
	// not the agent's words), and the chat's next message is not answered.
	m.inject(t, map[string]any{"chatId": -1003, "fromId": 4242, "fromName": "Ada", "text": "/send off"})
	if got := m.waitSend(t, "Send policy set to off"); got.ChatID.String() != "-1003" {
		t.Errorf("the /send off answer went to chat %s", got.ChatID)
	}
	m.inject(t, map[string]any{"chatId": -1003, "fromId": 4242, "fromName": "Ada", "text": "muted three"})
	m.inject(t, map[string]any{"chatId": -1003, "fromId": 4242, "fromName": "Ada", "text": "/send inherit"})
	m.waitSend(t, "Send policy set to inherit")
	if n := m.countSends(t, "muted three"); n != 0 {
		t.Errorf("the muted group's reply was sent %d times", n)
	}
	if n := m.countSends(t, "denied one"); n != 0 {
		t.Errorf("the denied group's reply was sent %d times", n)
	}
	if n := len(m.sendsTo(t, "-1002")); n != before {
		t.Errorf("chat -1002 got %d messages after ANNOUNCE_SKIP", n-before)
	}
}

// The typing action is shown in the chat while the run runs: crabline
// records a sendChatAction to the chat before the reply's sendMessage.
func TestTelegramTyping(t *testing.T) {
	m := crabline(t)
	startChannelGateway(t, t.TempDir(), fmt.Sprintf(`{
  agents: { defaults: { model: "script" } },
  models: { providers: { script: { rules: [ { when: { message: "think slowly" }, reply: "thought it over", delayMs: 1500 } ] } } },
  channels: { telegram: { botToken: %q, apiRoot: %q, dmPolicy: "open", allowFrom: ["*"] } },
}`, m.BotToken, m.Endpoints.APIRoot))
	m.inject(t, map[string]any{"chatId": 4242, "fromId": 4242, "text": "think slowly"})
	m.waitSend(t, "thought it over")
	b, err := os.ReadFile(m.Recorder)
	if err != nil {
		t.Fatal(err)
	}
	typing, reply := -1, -1
	for i, line := range strings.Split(string(b), "\n") {
		var rec struct {
			Type string         `json:"type"`
			Path string         `json:"path"`
			Body map[string]any `json:"body"`
		}
		if json.Unmarshal([]byte(line), &rec) != nil || rec.Type != "api" {
			continue
		}
		switch {
		case strings.HasSuffix(rec.Path, "/sendChatAction") && typing < 0:
			if fmt.Sprint(rec.Body["chat_id"]) != "4242" || rec.Body["action"] != "typing" {
				t.Errorf("sendChatAction %v", rec.Body)
			}
			typing = i
		case strings.HasSuffix(rec.Path, "/sendMessage") && strings.Contains(fmt.Sprint(rec.Body["text"]), "thought it over"):
			reply = i
		}
	}
	if typing < 0 || typing > reply {
		t.Errorf("typing action at line %d, reply at line %d: want the typing first", typing, reply)
	}
}
