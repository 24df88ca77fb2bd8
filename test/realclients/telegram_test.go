package realclients

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf16"

	crab "github.com/switchboard-go/switchboard/internal/channels/crabline"
	"github.com/switchboard-go/switchboard/internal/testkit"
)

// crablineManifest is a running `crabline serve telegram` (the shared
// test kit of internal/channels/crabline) with the Telegram helpers the
// tests here use.
type crablineManifest struct{ *crab.Server }

// crabline starts OpenClaw's fake Telegram Bot API server, or skips
// outside the real-client suite.
func crabline(t *testing.T) crablineManifest {
	t.Helper()
	return crablineManifest{crab.Start(t, "telegram")}
}

// via is m with its Bot API root replaced (a proxy in front of crabline).
func (m crablineManifest) via(apiRoot string) crablineManifest {
	s := *m.Server
	s.Endpoints.APIRoot = apiRoot
	return crablineManifest{&s}
}

// inject posts a user message to crabline's admin ingress.
func (m crablineManifest) inject(t *testing.T, body map[string]any) {
	t.Helper()
	m.Inject(t, body)
}

// sent is one recorded sendMessage.
type sent struct {
	ChatID   json.Number `json:"chat_id"`
	ThreadID int         `json:"message_thread_id"`
	Text     string      `json:"text"`
}

// sends returns the sendMessage calls crabline recorded so far.
func (m crablineManifest) sends(t *testing.T) []sent {
	t.Helper()
	var out []sent
	for _, c := range m.Calls(t, func(c crab.Call) bool { return strings.HasSuffix(c.Path, "/sendMessage") }) {
		b, _ := json.Marshal(c.Body)
		var s sent
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		if d.Decode(&s) == nil {
			out = append(out, s)
		}
	}
	return out
}

// waitSend waits for a recorded sendMessage whose text contains want.
func (m crablineManifest) waitSend(t *testing.T, want string) sent {
	t.Helper()
	var got sent
	testkit.WaitFor(t, 30*time.Second, "sendMessage with "+want, func() bool {
		for _, s := range m.sends(t) {
			if strings.Contains(s.Text, want) {
				got = s
				return true
			}
		}
		return false
	})
	return got
}

func (m crablineManifest) countSends(t *testing.T, want string) int {
	n := 0
	for _, s := range m.sends(t) {
		if strings.Contains(s.Text, want) {
			n++
		}
	}
	return n
}

// channelGateway is a running `switchboard gateway` with a channel
// config (stopped at the test's end) and its base URL.
type channelGateway struct {
	*testkit.Gateway
	url string
}

func startChannelGateway(t *testing.T, stateDir, config string) *channelGateway {
	t.Helper()
	g := testkit.StartGateway(t, testkit.GatewayOptions{Dir: stateDir, Config: config, Token: token})
	return &channelGateway{Gateway: g, url: g.URL}
}

// kill ends the gateway with SIGKILL.
func (g *channelGateway) kill(t *testing.T) {
	t.Helper()
	g.Kill()
}

// session reads a session row through the gateway's HTTP API.
func (g *channelGateway) session(t *testing.T, key string) map[string]any {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, g.url+"/api/sessions?limit=200", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Sessions []map[string]any `json:"sessions"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	for _, s := range body.Sessions {
		if s["key"] == key {
			return s
		}
	}
	return nil
}

// telegramConfig is a gateway config with the script model and a
// Telegram block pointed at crabline.
func telegramConfig(m crablineManifest, telegram string) string {
	long := strings.Repeat("word ", 1100) // 5,500 characters: two messages
	return fmt.Sprintf(`{
  agents: { defaults: { model: "script" } },
  models: { providers: { script: { rules: [
    { when: { message: "long please" }, reply: %q },
  ] } } },
  channels: { telegram: { botToken: %q, apiRoot: %q, %s } },
}`, long, m.BotToken, m.Endpoints.APIRoot, telegram)
}

// A group message that mentions the bot and a direct message from an
// allowed sender are answered in their own chats; a group message without
// a mention and a direct message from a stranger are not.
func TestTelegramGroupAndDirect(t *testing.T) {
	m := crabline(t)
	g := startChannelGateway(t, t.TempDir(), telegramConfig(m, `dmPolicy: "allowlist", allowFrom: [4242],
    groupPolicy: "open", groups: { "*": { requireMention: true } }`))
	m.inject(t, map[string]any{"chatId": -1001, "fromId": 4242, "text": "no mention here"})
	m.inject(t, map[string]any{"chatId": -1001, "fromId": 4242, "fromName": "Ada", "text": "@crabline_bot hello group"})
	got := m.waitSend(t, "hello group")
	if got.ChatID.String() != "-1001" {
		t.Errorf("group reply went to chat %s", got.ChatID)
	}
	if n := m.countSends(t, "no mention here"); n != 0 {
		t.Errorf("a message without a mention was answered %d times", n)
	}
	m.inject(t, map[string]any{"chatId": 999, "fromId": 999, "text": "stranger says hi"})
	m.inject(t, map[string]any{"chatId": 4242, "fromId": 4242, "text": "hello direct"})
	got = m.waitSend(t, "hello direct")
	if got.ChatID.String() != "4242" {
		t.Errorf("direct reply went to chat %s", got.ChatID)
	}
	if n := m.countSends(t, "stranger says hi"); n != 0 {
		t.Errorf("a stranger's message was answered %d times", n)
	}
	row := g.session(t, "agent:main:telegram:group:-1001")
	if row == nil {
		t.Fatal("no session row for the group")
	}
	dc, _ := row["deliveryContext"].(map[string]any)
	if row["lastChannel"] != "telegram" || row["lastTo"] != "telegram:-1001" || dc["to"] != "telegram:-1001" || dc["accountId"] != "default" {
		t.Errorf("group row delivery fields: %v", row)
	}
}

// A reply longer than Telegram's limit arrives as several messages, none
// longer than 4,096 UTF-16 units.
func TestTelegramLongReplySplit(t *testing.T) {
	m := crabline(t)
	startChannelGateway(t, t.TempDir(), telegramConfig(m, `dmPolicy: "open", allowFrom: ["*"]`))
	m.inject(t, map[string]any{"chatId": 4242, "fromId": 4242, "text": "long please"})
	testkit.WaitFor(t, 30*time.Second, "two pieces", func() bool { return m.countSends(t, "word word") >= 2 })
	total := 0
	for _, s := range m.sends(t) {
		if n := len(utf16.Encode([]rune(s.Text))); n > 4096 {
			t.Errorf("a piece has %d UTF-16 units", n)
		}
		total += strings.Count(s.Text, "word")
	}
	if total != 1100 {
		t.Errorf("the pieces hold %d words, want 1100", total)
	}
}

// freePort returns a loopback port nothing listens on.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// Webhook mode: crabline pushes the update with the secret and the reply
// comes back; a post with a wrong secret gets 401 and starts nothing.
func TestTelegramWebhookSecret(t *testing.T) {
	m := crabline(t)
	port := freePort(t)
	hook := fmt.Sprintf("http://127.0.0.1:%d/telegram-webhook", port)
	startChannelGateway(t, t.TempDir(), telegramConfig(m, fmt.Sprintf(`dmPolicy: "open", allowFrom: ["*"],
    webhookUrl: %q, webhookSecret: "s3cret-hook", webhookPort: %d`, hook, port)))
	forged := `{"update_id": 900, "message": {"message_id": 1, "date": 1, "chat": {"id": 4242, "type": "private"},
	  "from": {"id": 4242, "is_bot": false, "first_name": "F"}, "text": "forged message"}}`
	var resp *http.Response
	testkit.WaitFor(t, 30*time.Second, "webhook listener", func() bool {
		req, _ := http.NewRequest(http.MethodPost, hook, strings.NewReader(forged))
		req.Header.Set("X-Telegram-Bot-Api-Secret-Token", "wrong")
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			return false
		}
		r.Body.Close()
		resp = r
		return true
	})
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("wrong secret: %s, want 401", resp.Status)
	}
	// setWebhook is registered once the bot identified itself.
	testkit.WaitFor(t, 30*time.Second, "setWebhook", func() bool { return recorded(m, "/setWebhook") })
	m.inject(t, map[string]any{"chatId": 4242, "fromId": 4242, "text": "via webhook"})
	m.waitSend(t, "via webhook")
	if n := m.countSends(t, "forged message"); n != 0 {
		t.Errorf("the forged update was answered %d times", n)
	}
}

// recorded reports whether crabline recorded a call to path's method.
func recorded(m crablineManifest, suffix string) bool {
	b, err := os.ReadFile(m.Recorder)
	return err == nil && bytes.Contains(b, []byte(suffix+`"`))
}

// rateLimiter is a proxy in front of crabline that answers the first
// sendMessage with 429 and retry_after, and notes when each arrives.
type rateLimiter struct {
	target   *url.URL
	limited  atomic.Bool
	mu       sync.Mutex
	sendsAt  []time.Time
	hold     atomic.Bool   // hold sendMessage calls without answering
	held     chan struct{} // a call is being held
	release  chan struct{} // closed: held calls end unanswered
	retryAft int
}

func (p *rateLimiter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasSuffix(r.URL.Path, "/sendMessage") {
		p.mu.Lock()
		p.sendsAt = append(p.sendsAt, time.Now())
		p.mu.Unlock()
		if p.hold.Load() {
			// The body is read first: the server notices the client's
			// connection closing (the gateway killed) only once it has.
			_, _ = io.Copy(io.Discard, r.Body)
			select {
			case p.held <- struct{}{}:
			default:
			}
			select {
			case <-r.Context().Done():
			case <-p.release:
			}
			http.Error(w, "held", http.StatusBadGateway)
			return
		}
		if p.retryAft > 0 && p.limited.CompareAndSwap(false, true) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprintf(w, `{"ok":false,"error_code":429,"description":"Too Many Requests: retry after %d","parameters":{"retry_after":%d}}`, p.retryAft, p.retryAft)
			return
		}
	}
	proxyTo(w, r, p.target)
}

// proxyTo forwards a request to target.
func proxyTo(w http.ResponseWriter, r *http.Request, target *url.URL) {
	body, _ := io.ReadAll(r.Body)
	u := *target
	u.Path = r.URL.Path
	u.RawQuery = r.URL.RawQuery
	req, _ := http.NewRequestWithContext(r.Context(), r.Method, u.String(), bytes.NewReader(body))
	req.Header = r.Header.Clone()
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}

// A 429 with retry_after is honoured: the send is repeated no sooner,
// and the reply arrives once.
func TestTelegramRetryAfter(t *testing.T) {
	m := crabline(t)
	target, _ := url.Parse(m.Endpoints.APIRoot)
	p := &rateLimiter{target: target, retryAft: 2}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close) // after the gateway stops (cleanups run last first)
	proxied := m.via(srv.URL)
	startChannelGateway(t, t.TempDir(), telegramConfig(proxied, `dmPolicy: "open", allowFrom: ["*"]`))
	m.inject(t, map[string]any{"chatId": 4242, "fromId": 4242, "text": "rate me"})
	m.waitSend(t, "rate me")
	p.mu.Lock()
	at := append([]time.Time(nil), p.sendsAt...)
	p.mu.Unlock()
	if len(at) != 2 {
		t.Fatalf("sendMessage reached the proxy %d times, want 2", len(at))
	}
	if gap := at[1].Sub(at[0]); gap < 2*time.Second {
		t.Errorf("retried after %v, before retry_after (2s)", gap)
	}
	if n := m.countSends(t, "rate me"); n != 1 {
		t.Errorf("the reply was delivered %d times", n)
	}
}

// A gateway killed between a run's end and its delivery delivers the
// reply once after the restart.
func TestTelegramKillBeforeDelivery(t *testing.T) {
	m := crabline(t)
	target, _ := url.Parse(m.Endpoints.APIRoot)
	p := &rateLimiter{target: target, held: make(chan struct{}, 1), release: make(chan struct{})}
	p.hold.Store(true)
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close) // after the gateway stops (cleanups run last first)
	t.Cleanup(func() { close(p.release) })
	proxied := m.via(srv.URL)
	dir := t.TempDir()
	// Streaming off: the held call must be the reply's delivery, not a
	// streamed message's first send.
	cfg := telegramConfig(proxied, `dmPolicy: "open", allowFrom: ["*"], streaming: { mode: "off" }`)
	g := startChannelGateway(t, dir, cfg)
	m.inject(t, map[string]any{"chatId": 4242, "fromId": 4242, "text": "survive the kill"})
	select {
	case <-p.held: // the run ended and its delivery is in flight
	case <-time.After(30 * time.Second):
		t.Fatal("no delivery attempt")
	}
	g.kill(t)
	p.hold.Store(false)
	startChannelGateway(t, dir, cfg)
	m.waitSend(t, "survive the kill")
	// Give a duplicate every chance to show: a later message's reply is
	// delivered after any retry of the first.
	m.inject(t, map[string]any{"chatId": 4242, "fromId": 4242, "text": "after restart"})
	m.waitSend(t, "after restart")
	if n := m.countSends(t, "survive the kill"); n != 1 {
		t.Errorf("the reply was delivered %d times, want 1", n)
	}
}

// An OpenClaw state dir with a Telegram group session, imported, then a
// new message in that group continues the same session: one row, the
// imported history followed by the new turn.
func TestTelegramImportThenContinue(t *testing.T) {
	m := crabline(t)
	const sid = "0b0e8a41-6c1d-4c57-9a52-2b1f3f7f0101"
	key := "agent:main:telegram:group:-1001"
	oc := openclawState(t, ocSession{key: key, id: sid, question: "imported question", answer: "imported answer",
		entry: map[string]any{"chatType": "group", "channel": "telegram", "lastChannel": "telegram", "lastTo": "telegram:-1001",
			"displayName": "Ops", "origin": map[string]any{"provider": "telegram"}}})
	state := t.TempDir()
	cfg := telegramConfig(m, `groupPolicy: "open", groups: { "*": { requireMention: false } }`)
	if err := os.WriteFile(filepath.Join(state, "switchboard.json5"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(testkit.Binary(t), "import", "openclaw", "--state-dir", state, oc).CombinedOutput(); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	g := startChannelGateway(t, state, cfg)
	m.inject(t, map[string]any{"chatId": -1001, "fromId": 4242, "fromName": "Ada", "text": "a new question"})
	m.waitSend(t, "a new question")
	row := g.session(t, key)
	if row == nil || row["sessionId"] != sid {
		t.Fatalf("the group's row after the new message: %v (want sessionId %s)", row, sid)
	}
	if h := history(t, state, key); !inOrder(h, "imported question", "imported answer", "a new question") {
		t.Errorf("history is not the imported turns then the new one:\n%s", h)
	}
}
