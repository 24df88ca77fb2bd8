package realclients

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/channels/bluebubbles/bbtest"
	crab "github.com/switchboard-go/switchboard/internal/channels/crabline"
	"github.com/switchboard-go/switchboard/internal/channels/whatsapp"
	"github.com/switchboard-go/switchboard/internal/testkit"
)

// openclawSession is one imported session: its key and transcript.
type openclawSession struct {
	key, sid, channel, chatType, lastTo, question string
}

// writeOpenClawState writes an OpenClaw state dir holding sessions, each
// with one imported question and answer.
func writeOpenClawState(t *testing.T, sessions []openclawSession) string {
	t.Helper()
	oc := t.TempDir()
	dir := filepath.Join(oc, "agents", "main", "sessions")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	index := map[string]any{}
	for i, s := range sessions {
		index[s.key] = map[string]any{"sessionId": s.sid, "updatedAt": 1775037500000 + i, "chatType": s.chatType,
			"channel": s.channel, "lastChannel": s.channel, "lastTo": s.lastTo, "origin": map[string]any{"provider": s.channel}}
		transcript := `{"type":"session","version":3,"id":"` + s.sid + `","timestamp":"2026-04-01T09:58:00.000Z","cwd":"/w"}
{"type":"message","id":"d0000001","parentId":null,"timestamp":"2026-04-01T09:58:10.000Z","message":{"role":"user","content":"` + s.question + `","timestamp":1775037490000}}
{"type":"message","id":"d0000002","parentId":"d0000001","timestamp":"2026-04-01T09:58:20.000Z","message":{"role":"assistant","content":[{"type":"text","text":"imported answer"}],"stopReason":"stop","timestamp":1775037500000}}
`
		if err := os.WriteFile(filepath.Join(dir, s.sid+".jsonl"), []byte(transcript), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := json.Marshal(index)
	if err := os.WriteFile(filepath.Join(dir, "sessions.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return oc
}

// The fake servers' credentials in the messenger tests.
const bbPassword, waAppSecret = "bb-secret", "wa-app-secret"

// messengers are the three providers' fake servers: crabline's Signal
// and WhatsApp servers and a fake BlueBubbles server.
type messengers struct {
	sig, wa *crab.Server
	bb      *bbtest.Server
}

func startMessengers(t *testing.T) messengers {
	return messengers{sig: crab.Start(t, "signal"), wa: crab.Start(t, "whatsapp"), bb: bbtest.New(t, bbPassword)}
}

// waitWhatsAppHook waits until the WhatsApp webhook answers Meta's
// verification handshake (verify token "vt").
func waitWhatsAppHook(t *testing.T, hook string) {
	t.Helper()
	testkit.WaitFor(t, 30*time.Second, "the WhatsApp webhook", func() bool {
		resp, err := http.Get(hook + "?hub.mode=subscribe&hub.verify_token=vt&hub.challenge=ok")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
}

// waitBlueBubblesHook waits until the BlueBubbles webhook listens (it
// answers a GET 405).
func waitBlueBubblesHook(t *testing.T, hook string) {
	t.Helper()
	testkit.WaitFor(t, 30*time.Second, "the BlueBubbles webhook", func() bool {
		resp, err := http.Get(hook)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusMethodNotAllowed
	})
}

// postBlueBubbles posts a webhook delivery, which must be answered 200.
func postBlueBubbles(t *testing.T, hook string, body []byte) {
	t.Helper()
	resp, err := http.Post(hook, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the BlueBubbles webhook answered %d", resp.StatusCode)
	}
}

// waSigner signs WhatsApp webhook deliveries with an app secret.
func waSigner(secret string) func([]byte) string {
	return func(b []byte) string { return whatsapp.Sign(secret, b) }
}

// waitOutboxEmpty waits until the gateway of state has no pending
// delivery.
func waitOutboxEmpty(t *testing.T, state string) {
	t.Helper()
	testkit.WaitFor(t, 30*time.Second, "an empty outbox", func() bool {
		cmd := exec.Command(testkit.Binary(t), "outbox", "list", "--status", "pending", "--json", "--state-dir", state)
		cmd.Env = append(os.Environ(), "SWITCHBOARD_GATEWAY_TOKEN="+token)
		out, err := cmd.Output()
		var list struct {
			Count int `json:"count"`
		}
		return err == nil && json.Unmarshal(out, &list) == nil && list.Count == 0
	})
}

// An OpenClaw state with a Signal group (its base64 id in mixed case), a
// WhatsApp Web direct chat (keyed by its JID) and a BlueBubbles iMessage
// group, imported: new messages from the same chats continue the same
// sessions, answered in their chats; a WhatsApp delivery with a wrong
// signature is refused and a replayed one answers once.
func TestSignalWhatsAppIMessageImportThenContinue(t *testing.T) {
	m := startMessengers(t)
	sig, wa, bb, appSecret := m.sig, m.wa, m.bb, waAppSecret
	const (
		signalGroup = "AbCdEfGh1234567890xyZ+/w=="
		waNumber    = "15550001001"
		bbGroup     = "iMessage;+;chat123456789"
	)
	imported := []openclawSession{
		{key: "agent:main:signal:group:" + signalGroup, sid: "0b0e8a41-6c1d-4c57-9a52-2b1f3f7f0201", channel: "signal",
			chatType: "group", lastTo: "signal:group:" + signalGroup, question: "imported signal question"},
		{key: "agent:main:whatsapp:direct:" + waNumber + "@s.whatsapp.net", sid: "0b0e8a41-6c1d-4c57-9a52-2b1f3f7f0202", channel: "whatsapp",
			chatType: "direct", lastTo: "+" + waNumber, question: "imported whatsapp question"},
		{key: "agent:main:bluebubbles:group:" + strings.ToLower(bbGroup), sid: "0b0e8a41-6c1d-4c57-9a52-2b1f3f7f0203", channel: "bluebubbles",
			chatType: "group", lastTo: "bluebubbles:chat_guid:" + bbGroup, question: "imported imessage question"},
	}
	oc := writeOpenClawState(t, imported)
	waPort, bbPort := freePort(t), freePort(t)
	cfg := fmt.Sprintf(`{
  agents: { defaults: { model: "script" } },
  session: { dmScope: "per-channel-peer" },
  channels: {
    signal: { account: %q, httpUrl: %q, groupPolicy: "open", groups: { %q: { requireMention: false } } },
    whatsapp: { accessToken: %q, phoneNumberId: %q, apiRoot: %q, appSecret: %q, verifyToken: "vt",
      webhookPort: %d, dmPolicy: "allowlist", allowFrom: ["+%s"] },
    bluebubbles: { serverUrl: %q, password: %q, webhookPort: %d, groupPolicy: "open",
      groups: { %q: { requireMention: false } } },
  },
}`, sig.Account, sig.BaseURL, signalGroup, wa.AccessToken, wa.PhoneNumberID, wa.Endpoints.APIRoot, appSecret,
		waPort, waNumber, bb.URL, bbPassword, bbPort, bbGroup)
	state := t.TempDir()
	if err := os.WriteFile(filepath.Join(state, "switchboard.json5"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(testkit.Binary(t), "import", "openclaw", "--state-dir", state, oc).CombinedOutput(); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	g := startChannelGateway(t, state, cfg)
	waHook := fmt.Sprintf("http://127.0.0.1:%d/whatsapp-webhook", waPort)
	bbHook := fmt.Sprintf("http://127.0.0.1:%d/bluebubbles-webhook?password=%s", bbPort, bbPassword)

	// Signal: a group message, answered in the group.
	sig.Inject(t, map[string]any{"groupId": signalGroup, "sourceNumber": "+15550002002", "sourceName": "Bob", "text": "signal follow-up"})
	testkit.WaitFor(t, 30*time.Second, "the Signal reply", func() bool { return sig.SignalSent(t, "groupId", signalGroup, "signal follow-up") == 1 })

	// WhatsApp: a forged delivery first, then the real one twice.
	waitWhatsAppHook(t, waHook)
	dm := map[string]any{"chatJid": waNumber + "@s.whatsapp.net", "senderJid": waNumber + "@s.whatsapp.net", "pushName": "Ada"}
	dm["text"] = "forged follow-up"
	if st, _ := wa.RelayWhatsApp(t, waHook, waSigner("not-the-secret"), dm); st != http.StatusUnauthorized {
		t.Fatalf("a forged WhatsApp delivery got %d, want 401", st)
	}
	dm["text"] = "whatsapp follow-up"
	st, payload := wa.RelayWhatsApp(t, waHook, waSigner(appSecret), dm)
	if st != http.StatusOK || crab.PostSigned(t, waHook, waSigner(appSecret), payload) != http.StatusOK {
		t.Fatalf("the WhatsApp webhook refused a signed delivery")
	}
	testkit.WaitFor(t, 30*time.Second, "the WhatsApp reply", func() bool { return wa.CloudSent(t, waNumber, "whatsapp follow-up") >= 1 })

	// iMessage: a group message through the BlueBubbles webhook.
	waitBlueBubblesHook(t, bbHook)
	body := bbtest.Delivery(t, "new-message-group.json", "", "imessage follow-up", "")
	postBlueBubbles(t, bbHook, body)
	testkit.WaitFor(t, 30*time.Second, "the iMessage reply", func() bool { return bb.SentContaining(bbGroup, "imessage follow-up") >= 1 })

	for _, s := range imported {
		row := g.session(t, s.key)
		if row == nil || row["sessionId"] != s.sid {
			t.Errorf("%s after the new message: %v (want sessionId %s)", s.key, row, s.sid)
			continue
		}
		if row["lastChannel"] != s.channel {
			t.Errorf("%s: lastChannel %v, want %s", s.key, row["lastChannel"], s.channel)
		}
	}
	if row := g.session(t, imported[0].key); row != nil {
		dc, _ := row["deliveryContext"].(map[string]any)
		if row["lastTo"] != "signal:group:"+signalGroup || dc["to"] != "signal:group:"+signalGroup || dc["channel"] != "signal" {
			t.Errorf("signal row delivery fields: %v", row)
		}
	}
	for _, s := range imported {
		hist := exec.Command(testkit.Binary(t), "sessions", "history", "--json", "--state-dir", state, s.key)
		hist.Env = append(os.Environ(), "SWITCHBOARD_GATEWAY_TOKEN="+token)
		out, err := hist.CombinedOutput()
		if err != nil {
			t.Fatalf("history %s: %v\n%s", s.key, err, out)
		}
		h := string(out)
		if iq, nq := strings.Index(h, s.question), strings.Index(h, "follow-up"); iq < 0 || nq < iq {
			t.Errorf("%s history is not the imported turn then the new one:\n%s", s.key, h)
		}
	}
	// channels.status and the metrics show the three channels' traffic.
	var status struct {
		ChannelOrder    []string `json:"channelOrder"`
		ChannelAccounts map[string][]struct {
			Connected bool   `json:"connected"`
			Received  uint64 `json:"received"`
			Delivered uint64 `json:"delivered"`
		} `json:"channelAccounts"`
	}
	getJSON(t, g.url+"/api/channels/status", &status)
	for _, ch := range []string{"bluebubbles", "signal", "whatsapp"} {
		accts := status.ChannelAccounts[ch]
		if len(accts) != 1 || !accts[0].Connected || accts[0].Received < 1 || accts[0].Delivered < 1 {
			t.Errorf("channels.status of %s: %+v (order %v)", ch, accts, status.ChannelOrder)
		}
	}
	metrics := getText(t, g.url+"/metrics")
	for _, ch := range []string{"bluebubbles", "signal", "whatsapp"} {
		if !strings.Contains(metrics, `switchboard_channel_messages_total{account="default",channel="`+ch+`",outcome="received"} 1`) {
			t.Errorf("the metrics lack %s's received message", ch)
		}
	}
	// A chat command from the Signal group: /new starts a new session
	// there and its answer goes back to the group.
	sig.Inject(t, map[string]any{"groupId": signalGroup, "sourceNumber": "+15550002002", "text": "/new"})
	testkit.WaitFor(t, 30*time.Second, "the /new answer", func() bool {
		return sig.SignalSent(t, "groupId", signalGroup, "New session started") == 1
	})
	if row := g.session(t, imported[0].key); row == nil || row["sessionId"] == imported[0].sid {
		t.Errorf("/new from the Signal group left the row at %v", row)
	}
	// The replayed WhatsApp delivery started one turn: one reply.
	if n := wa.CloudSent(t, waNumber, "whatsapp follow-up"); n != 1 {
		t.Errorf("the replayed WhatsApp delivery was answered %d times", n)
	}
	if n := wa.CloudSent(t, waNumber, "forged"); n != 0 {
		t.Errorf("the forged WhatsApp delivery was answered %d times", n)
	}
}

// WhatsApp's API down when a run ends: the reply and an announce sent
// with POST /api/send wait in the outbox; the gateway is killed with
// SIGKILL, the API comes back, the restarted gateway delivers each
// exactly once.
func TestWhatsAppKilledBeforeDeliveryDeliversOnce(t *testing.T) {
	wa := crab.Start(t, "whatsapp")
	target, _ := url.Parse(wa.BaseURL)
	rp := httputil.NewSingleHostReverseProxy(target)
	var down atomic.Bool
	var refused atomic.Int32
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() && strings.HasSuffix(r.URL.Path, "/messages") {
			// Only sends count: the read mark with the typing indicator is
			// refused too, but it is no delivery.
			b, _ := io.ReadAll(r.Body)
			if bytes.Contains(b, []byte(`"to"`)) {
				refused.Add(1)
			}
			http.Error(w, `{"error":{"message":"Service temporarily unavailable","code":2}}`, http.StatusServiceUnavailable)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	defer proxy.Close()
	const appSecret, number = "wa-app-secret", "15550003003"
	port := freePort(t)
	cfg := fmt.Sprintf(`{
  agents: { defaults: { model: "script" } },
  channels: { whatsapp: { accessToken: %q, phoneNumberId: %q, apiRoot: %q, appSecret: %q, verifyToken: "vt",
    webhookPort: %d, dmPolicy: "open", allowFrom: ["*"] } },
}`, wa.AccessToken, wa.PhoneNumberID, proxy.URL+"/"+wa.GraphVersion, appSecret, port)
	state := t.TempDir()
	g := startChannelGateway(t, state, cfg)
	hook := fmt.Sprintf("http://127.0.0.1:%d/whatsapp-webhook", port)
	waitWhatsAppHook(t, hook)
	down.Store(true)
	dm := map[string]any{"chatJid": number + "@s.whatsapp.net", "senderJid": number + "@s.whatsapp.net", "text": "killed before delivery"}
	if st, _ := wa.RelayWhatsApp(t, hook, waSigner(appSecret), dm); st != http.StatusOK {
		t.Fatalf("webhook answered %d", st)
	}
	send, _ := json.Marshal(map[string]any{"channel": "whatsapp", "to": "whatsapp:+" + number, "message": "announce while down",
		"sessionKey": "main", "idempotencyKey": "announce-1"})
	req, _ := http.NewRequest(http.MethodPost, g.url+"/api/send", bytes.NewReader(send))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /api/send: %s", resp.Status)
	}
	testkit.WaitFor(t, 30*time.Second, "both deliveries refused once", func() bool { return refused.Load() >= 2 })
	g.kill(t)
	down.Store(false)
	startChannelGateway(t, state, cfg)
	testkit.WaitFor(t, 60*time.Second, "both deliveries", func() bool {
		return wa.CloudSent(t, number, "killed before delivery") >= 1 && wa.CloudSent(t, number, "announce while down") >= 1
	})
	waitOutboxEmpty(t, state)
	for _, text := range []string{"killed before delivery", "announce while down"} {
		if n := wa.CloudSent(t, number, text); n != 1 {
			t.Errorf("%q delivered %d times, want 1", text, n)
		}
	}
}

func getJSON(t *testing.T, u string, into any) {
	t.Helper()
	if err := json.Unmarshal([]byte(getText(t, u)), into); err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
}

func getText(t *testing.T, u string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s %s", u, resp.Status, b.String())
	}
	return b.String()
}

// The BlueBubbles server down (the Mac asleep) when a reply is due,
// then SIGKILL, then the server back: the restarted gateway delivers the
// reply exactly once.
func TestIMessageKilledBeforeDeliveryDeliversOnce(t *testing.T) {
	password := bbPassword
	bb := bbtest.New(t, password)
	port := freePort(t)
	cfg := fmt.Sprintf(`{
  agents: { defaults: { model: "script" } },
  channels: { bluebubbles: { serverUrl: %q, password: %q, webhookPort: %d, dmPolicy: "open", allowFrom: ["*"] } },
}`, bb.URL, password, port)
	state := t.TempDir()
	g := startChannelGateway(t, state, cfg)
	hook := fmt.Sprintf("http://127.0.0.1:%d/bluebubbles-webhook?password=%s", port, password)
	waitBlueBubblesHook(t, hook)
	bb.Down.Store(true)
	body := bbtest.Delivery(t, "new-message-direct.json", "", "asleep then awake", "")
	postBlueBubbles(t, hook, body)
	testkit.WaitFor(t, 30*time.Second, "a refused delivery", func() bool { return bb.Refused() >= 1 })
	g.kill(t)
	bb.Down.Store(false)
	startChannelGateway(t, state, cfg)
	const chat = "iMessage;-;+15551234567"
	count := func() int { return bb.SentContaining(chat, "asleep then awake") }
	testkit.WaitFor(t, 60*time.Second, "the reply", func() bool { return count() >= 1 })
	waitOutboxEmpty(t, state)
	if n := count(); n != 1 {
		t.Errorf("the reply was delivered %d times, want 1", n)
	}
}

// signal-cli's daemon refusing sends when a reply is due, then SIGKILL,
// then the daemon back: the restarted gateway delivers the reply exactly
// once, and the message is not received twice.
func TestSignalKilledBeforeDeliveryDeliversOnce(t *testing.T) {
	sig := crab.Start(t, "signal")
	target, _ := url.Parse(sig.BaseURL)
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.FlushInterval = -1 // the event stream
	var down atomic.Bool
	var refused atomic.Int32
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() && r.URL.Path == "/api/v1/rpc" {
			// Only sends count: sendTyping is refused too, but it is no
			// delivery.
			b, _ := io.ReadAll(r.Body)
			if bytes.Contains(b, []byte(`"method":"send"`)) {
				refused.Add(1)
			}
			http.Error(w, "daemon restarting", http.StatusServiceUnavailable)
			return
		}
		r.Host = target.Host // crabline checks the Host header
		rp.ServeHTTP(w, r)
	}))
	// Closed after the gateways stop (cleanups run last first): Close
	// waits for their event streams.
	t.Cleanup(proxy.Close)
	const ada = "+15550004004"
	cfg := fmt.Sprintf(`{
  agents: { defaults: { model: "script" } },
  channels: { signal: { account: %q, httpUrl: %q, dmPolicy: "open", allowFrom: ["*"] } },
}`, sig.Account, proxy.URL)
	state := t.TempDir()
	g := startChannelGateway(t, state, cfg)
	down.Store(true)
	sig.Inject(t, map[string]any{"sourceNumber": ada, "sourceName": "Ada", "text": "signal asleep then awake"})
	testkit.WaitFor(t, 30*time.Second, "a refused delivery", func() bool { return refused.Load() >= 1 })
	g.kill(t)
	down.Store(false)
	startChannelGateway(t, state, cfg)
	testkit.WaitFor(t, 60*time.Second, "the reply", func() bool { return sig.SignalSent(t, "recipient", ada, "signal asleep then awake") >= 1 })
	waitOutboxEmpty(t, state)
	if n := sig.SignalSent(t, "recipient", ada, "signal asleep then awake"); n != 1 {
		t.Errorf("the reply was delivered %d times, want 1", n)
	}
}
