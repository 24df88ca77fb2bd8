package realclients

import (
	"fmt"
	"github.com/switchboard-go/switchboard/internal/testkit"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/channels/bluebubbles/bbtest"
)

// Outbound through Signal, WhatsApp and iMessage as through Telegram:
// sessions_send's announce step and a sub-agent's announce answered in
// each chat, the session rows filled from the traffic, and the chat
// commands /stop, /reset and /send off|inherit from the chats.
func TestMessengersOutbound(t *testing.T) {
	m := startMessengers(t)
	sig, wa, bb, appSecret := m.sig, m.wa, m.bb, waAppSecret
	const (
		signalGroup = "QmVlckdyb3VwSWQxMjM0NQ=="
		bob         = "+15550006006"
		waNumber    = "15550007007"
		bbGroup     = "iMessage;+;chat123456789"
		bbSender    = "ada@example.com"
	)
	waPort, bbPort := freePort(t), freePort(t)
	cfg := fmt.Sprintf(`{
  agents: { defaults: { model: "script" } },
  models: { providers: { script: { rules: [
    { when: { session: "signal:group:", system: "Agent-to-agent announce step:" }, reply: "announced to signal" },
    { when: { session: "whatsapp:direct:", system: "Agent-to-agent announce step:" }, reply: "announced to whatsapp" },
    { when: { session: "bluebubbles:group:", system: "Agent-to-agent announce step:" }, reply: "announced to imessage" },
    { when: { session: "subagent", role: "user", message: "child task" }, reply: "child result 77" },
    { when: { session: "signal:group:", system: "Sub-agent announce:" }, reply: "signal helper reported back" },
    { when: { session: "whatsapp:direct:", system: "Sub-agent announce:" }, reply: "whatsapp helper reported back" },
    { when: { session: "bluebubbles:group:", system: "Sub-agent announce:" }, reply: "imessage helper reported back" },
    { when: { role: "user", message: "spawn a helper" }, toolCall: { name: "sessions_spawn", arguments: { task: "child task" } } },
    { when: { role: "user", message: "think slowly" }, reply: "thought it over", delayMs: 20000 },
  ] } } },
  session: { dmScope: "per-channel-peer", owners: [%q] },
  channels: {
    signal: { account: %q, httpUrl: %q, groupPolicy: "open", groups: { "*": { requireMention: false } } },
    whatsapp: { accessToken: %q, phoneNumberId: %q, apiRoot: %q, appSecret: %q, verifyToken: "vt",
      webhookPort: %d, dmPolicy: "allowlist", allowFrom: ["+%s"] },
    bluebubbles: { serverUrl: %q, password: %q, webhookPort: %d, groupPolicy: "open",
      groups: { "*": { requireMention: false } } },
  },
}`, bbSender, sig.Account, sig.BaseURL, wa.AccessToken, wa.PhoneNumberID, wa.Endpoints.APIRoot, appSecret,
		waPort, waNumber, bb.URL, bbPassword, bbPort)
	state := t.TempDir()
	g := startChannelGateway(t, state, cfg)
	waHook := fmt.Sprintf("http://127.0.0.1:%d/whatsapp-webhook", waPort)
	bbHook := fmt.Sprintf("http://127.0.0.1:%d/bluebubbles-webhook?password=%s", bbPort, bbPassword)
	waitWhatsAppHook(t, waHook)
	waitBlueBubblesHook(t, bbHook)

	// One message from each chat opens its session.
	signalSay := func(text string) {
		sig.Inject(t, map[string]any{"groupId": signalGroup, "sourceNumber": bob, "sourceName": "Bob", "text": text})
	}
	waSay := func(text string) {
		msg := map[string]any{"chatJid": waNumber + "@s.whatsapp.net", "senderJid": waNumber + "@s.whatsapp.net", "pushName": "Ada", "text": text}
		if st, _ := wa.RelayWhatsApp(t, waHook, waSigner(appSecret), msg); st != http.StatusOK {
			t.Fatalf("the WhatsApp webhook answered %d", st)
		}
	}
	bbN := 0
	bbSay := func(text string) {
		bbN++
		body := bbtest.Delivery(t, "new-message-group.json", fmt.Sprintf("out%d", bbN), text, "")
		postBlueBubbles(t, bbHook, body)
	}
	signalCount := func(text string) func() int {
		return func() int { return sig.SignalSent(t, "groupId", signalGroup, text) }
	}
	waCount := func(text string) func() int { return func() int { return wa.CloudSent(t, waNumber, text) } }
	bbCount := func(text string) func() int { return func() int { return bb.SentContaining(bbGroup, text) } }
	type chat struct {
		name, key, to, title string
		say                  func(string)
		count                func(string) func() int
	}
	chats := []chat{
		{"signal", "agent:main:signal:group:" + signalGroup, "signal:group:" + signalGroup, "", signalSay, signalCount},
		{"whatsapp", "agent:main:whatsapp:direct:+" + waNumber, "whatsapp:+" + waNumber, "Ada", waSay, waCount},
		{"imessage", "agent:main:bluebubbles:group:" + strings.ToLower(bbGroup), "bluebubbles:chat_guid:" + bbGroup, "Book Club", bbSay, bbCount},
	}
	for _, c := range chats {
		c.say("hello from " + c.name)
		testkit.WaitFor(t, 30*time.Second, c.name+"'s reply", func() bool { return c.count("hello from "+c.name)() == 1 })
	}

	// The rows carry what the traffic said.
	channelOf := map[string]string{"signal": "signal", "whatsapp": "whatsapp", "imessage": "bluebubbles"}
	for _, c := range chats {
		row := g.session(t, c.key)
		if row == nil {
			t.Fatalf("no row %s", c.key)
		}
		ch := channelOf[c.name]
		dc, _ := row["deliveryContext"].(map[string]any)
		origin, _ := row["origin"].(map[string]any)
		if row["channel"] != ch || row["lastChannel"] != ch || row["lastTo"] != c.to ||
			dc["channel"] != ch || dc["to"] != c.to || dc["accountId"] != "default" || origin["provider"] != ch {
			t.Errorf("%s row: %v", c.name, row)
		}
		if c.title != "" && row["displayName"] != c.title {
			t.Errorf("%s row displayName %v, want %q", c.name, row["displayName"], c.title)
		}
	}

	// sessions_send into each chat's session: its announce step's reply
	// goes to the chat.
	for _, c := range chats {
		cli(t, state, "send", c.key, "please announce", "--timeout", "0")
		testkit.WaitFor(t, 30*time.Second, c.name+"'s announce", func() bool { return c.count("announced to "+c.name)() == 1 })
	}
	// A sub-agent spawned from each chat: its announce is answered there,
	// the child's own reply reaches no chat.
	for _, c := range chats {
		c.say("spawn a helper")
		testkit.WaitFor(t, 60*time.Second, c.name+"'s spawn announce", func() bool { return c.count(c.name+" helper reported back")() == 1 })
		if n := c.count("child result 77")(); n != 0 {
			t.Errorf("the child's reply reached the %s chat %d times", c.name, n)
		}
	}

	// /stop from the Signal group stops the slow run: its reply never
	// comes.
	signalSay("think slowly")
	testkit.WaitFor(t, 30*time.Second, "the slow run", func() bool { return g.runRunning(t, chats[0].key) })
	signalSay("/stop")
	testkit.WaitFor(t, 30*time.Second, "the /stop answer", func() bool { return signalCount("Stopped 1 run")() == 1 })
	// /reset from WhatsApp starts a new session in the same row.
	before := g.session(t, chats[1].key)["sessionId"]
	waSay("/reset")
	testkit.WaitFor(t, 30*time.Second, "the /reset answer", func() bool { return waCount("New session started")() == 1 })
	if after := g.session(t, chats[1].key)["sessionId"]; after == before {
		t.Errorf("/reset kept sessionId %v", after)
	}
	// /send off from the iMessage group (its sender is an owner) denies
	// the session: a message there starts no turn and no reply is sent;
	// /send inherit gives it back. The webhook answers once a message is
	// handled, so the muted message was refused before the next is sent.
	bbSay("/send off")
	testkit.WaitFor(t, 30*time.Second, "the /send off override", func() bool { return g.session(t, chats[2].key)["sendPolicy"] == "deny" })
	// ... and is confirmed in the group it mutes.
	testkit.WaitFor(t, 30*time.Second, "the /send off answer", func() bool { return bbCount("Send policy set to off")() == 1 })
	bbSay("while muted")
	bbSay("/send inherit")
	testkit.WaitFor(t, 30*time.Second, "the /send inherit answer", func() bool { return bbCount("Send policy set to inherit")() == 1 })
	bbSay("heard again")
	testkit.WaitFor(t, 30*time.Second, "the reply after /send inherit", func() bool { return bbCount("heard again")() == 1 })
	if n := bbCount("while muted")(); n != 0 {
		t.Errorf("the muted group got %d replies", n)
	}
	for _, r := range g.sessionRuns(t, chats[2].key) {
		if strings.Contains(r.Message, "while muted") {
			t.Errorf("the muted message started a run: %+v", r)
		}
	}
	if n := signalCount("thought it over")(); n != 0 {
		t.Errorf("the stopped run's reply was sent %d times", n)
	}
}

// sessionRuns lists a session's runs.
func (g *channelGateway) sessionRuns(t *testing.T, key string) []struct {
	Status  string `json:"status"`
	Message string `json:"message"`
} {
	var res struct {
		Runs []struct {
			Status  string `json:"status"`
			Message string `json:"message"`
		} `json:"runs"`
	}
	g.call(t, http.MethodGet, "/api/runs?session="+url.QueryEscape(key), nil, &res)
	return res.Runs
}

// runRunning reports whether a session has a run running.
func (g *channelGateway) runRunning(t *testing.T, key string) bool {
	for _, r := range g.sessionRuns(t, key) {
		if r.Status == "running" {
			return true
		}
	}
	return false
}
