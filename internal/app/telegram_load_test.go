package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// botAPI is an in-process Telegram Bot API for measurements: getUpdates
// long-polls a queue the test fills, and every sendMessage is recorded
// with the time it arrived. It answers at once, so what it measures is
// switchboard's share of an update's path.
type botAPI struct {
	mu      sync.Mutex
	nextID  int64
	queue   []map[string]any
	offered map[int64]time.Time // update id → when getUpdates handed it out
	sent    []botSend
	wake    chan struct{} // a new update is queued
	sentC   chan struct{} // a sendMessage arrived
}

// botSend is one recorded sendMessage.
type botSend struct {
	chat int64
	text string
	at   time.Time
}

func newBotAPI() *botAPI {
	return &botAPI{offered: map[int64]time.Time{}, wake: make(chan struct{}, 1), sentC: make(chan struct{}, 1<<16)}
}

// message queues a user's message in a chat and returns its update id.
func (f *botAPI) message(chat int64, text string) int64 {
	f.mu.Lock()
	f.nextID++
	id := f.nextID
	f.queue = append(f.queue, map[string]any{"update_id": id, "message": map[string]any{"message_id": id, "date": time.Now().Unix(),
		"chat": map[string]any{"id": chat, "type": "private"}, "from": map[string]any{"id": chat, "is_bot": false, "first_name": "U"},
		"text": text}})
	f.mu.Unlock()
	select {
	case f.wake <- struct{}{}:
	default:
	}
	return id
}

// params reads a Bot API call's parameters (JSON or multipart).
func params(r *http.Request) map[string]string {
	out := map[string]string{}
	ct, p, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct == "multipart/form-data" {
		mr := multipart.NewReader(r.Body, p["boundary"])
		for {
			part, err := mr.NextPart()
			if err != nil {
				break
			}
			b, _ := io.ReadAll(part)
			out[part.FormName()] = string(b)
		}
		return out
	}
	var m map[string]any
	_ = json.NewDecoder(r.Body).Decode(&m)
	for k, v := range m {
		if s, ok := v.(string); ok {
			out[k] = s
		} else {
			b, _ := json.Marshal(v)
			out[k] = string(b)
		}
	}
	return out
}

func (f *botAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	method := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
	p := params(r)
	w.Header().Set("Content-Type", "application/json")
	switch method {
	case "getMe":
		_, _ = io.WriteString(w, `{"ok":true,"result":{"id":1,"is_bot":true,"first_name":"Bench","username":"bench_bot"}}`)
	case "getUpdates":
		offset, _ := strconv.ParseInt(p["offset"], 10, 64)
		deadline := time.NewTimer(2 * time.Second)
		defer deadline.Stop()
		for {
			f.mu.Lock()
			var out []map[string]any
			keep := f.queue[:0]
			for _, u := range f.queue {
				if id := u["update_id"].(int64); id >= offset {
					out = append(out, u)
					keep = append(keep, u)
					if _, ok := f.offered[id]; !ok {
						f.offered[id] = time.Now()
					}
				}
			}
			f.queue = keep
			f.mu.Unlock()
			if len(out) > 0 {
				b, _ := json.Marshal(map[string]any{"ok": true, "result": out})
				_, _ = w.Write(b)
				return
			}
			select {
			case <-f.wake:
			case <-deadline.C:
				_, _ = io.WriteString(w, `{"ok":true,"result":[]}`)
				return
			case <-r.Context().Done():
				return
			}
		}
	case "sendMessage":
		chat, _ := strconv.ParseInt(p["chat_id"], 10, 64)
		f.mu.Lock()
		f.nextID++
		id := f.nextID
		f.sent = append(f.sent, botSend{chat: chat, text: p["text"], at: time.Now()})
		f.mu.Unlock()
		f.sentC <- struct{}{}
		fmt.Fprintf(w, `{"ok":true,"result":{"message_id":%d,"date":%d,"chat":{"id":%d,"type":"private"},"text":"ok"}}`, id, time.Now().Unix(), chat)
	default: // deleteWebhook, sendChatAction
		_, _ = io.WriteString(w, `{"ok":true,"result":true}`)
	}
}

// sends returns the recorded sendMessage calls.
func (f *botAPI) sends() []botSend {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.sent)
}

// offeredAt is when getUpdates handed out an update.
func (f *botAPI) offeredAt(id int64) time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.offered[id]
}

// openTelegramApp opens a state dir whose Telegram bot talks to api, with
// the script model, and starts its channels.
func openTelegramApp(tb testing.TB, api *botAPI) *App {
	tb.Helper()
	srv := httptest.NewServer(api)
	tb.Cleanup(srv.Close)
	dir := tb.TempDir()
	cfg := fmt.Sprintf(`{ agents: { defaults: { model: "script" } }, session: { dmScope: "per-peer" },
  channels: { telegram: { botToken: "1:bench", apiRoot: %q, dmPolicy: "open", allowFrom: ["*"] } } }`, srv.URL)
	path := filepath.Join(dir, "switchboard.json5")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		tb.Fatal(err)
	}
	a, err := Open(context.Background(), Options{StateDir: dir, ConfigPath: path, Getenv: func(string) string { return "" }, Owner: "telegram bench"})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := a.Close(ctx); err != nil {
			tb.Errorf("close: %v", err)
		}
	})
	if err := a.StartChannels(context.Background(), nil); err != nil {
		tb.Fatal(err)
	}
	return a
}

// waitSends waits until at least n sendMessage calls are recorded.
func (f *botAPI) waitSends(tb testing.TB, n int, within time.Duration) {
	tb.Helper()
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	for len(f.sends()) < n {
		select {
		case <-f.sentC:
		case <-deadline.C:
			tb.Fatalf("%d of %d replies within %s", len(f.sends()), n, within)
		}
	}
}

// An update's path through switchboard: from getUpdates handing it out to
// the first sendMessage of its reply arriving (the script model; the
// reply is durable and goes through the outbox). One message at a time.
//
//	go test -run '^$' -bench TelegramInbound -benchtime 300x ./internal/app
func BenchmarkTelegramInbound(b *testing.B) {
	api := newBotAPI()
	openTelegramApp(b, api)
	// The first turn opens the session and warms the caches.
	api.message(4242, "warm up")
	api.waitSends(b, 1, 30*time.Second)
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		id := api.message(4242, "bench "+strconv.Itoa(i))
		api.waitSends(b, i+2, 30*time.Second)
		s := api.sends()[i+1]
		lat = append(lat, s.at.Sub(api.offeredAt(id)))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

// Load through one bot: chats sending messages at a total rate for a
// while; every message is answered once, in order per chat, none lost.
// The full run (200 chats, 10 messages/s, 60 s) is
//
//	SWITCHBOARD_TELEGRAM_LOAD=60s go test -run TelegramLoad -v ./internal/app
//
// without the variable it runs 5 s over 10 chats (five messages each).
func TestTelegramLoad(t *testing.T) {
	dur, chats := 5*time.Second, 10
	if v := os.Getenv("SWITCHBOARD_TELEGRAM_LOAD"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("SWITCHBOARD_TELEGRAM_LOAD: %v", err)
		}
		dur, chats = d, 200
	}
	const perSecond = 10
	api := newBotAPI()
	openTelegramApp(t, api)
	total := int(dur.Seconds() * perSecond)
	tick := time.NewTicker(time.Second / perSecond)
	defer tick.Stop()
	start := time.Now()
	for i := range total {
		<-tick.C
		chat := int64(1000 + i%chats)
		api.message(chat, fmt.Sprintf("m %d of chat %d", i/chats, chat))
	}
	sentAll := time.Since(start)
	api.waitSends(t, total, 60*time.Second)
	lag := time.Since(start) - sentAll
	got := map[int64][]string{}
	for _, s := range api.sends() {
		got[s.chat] = append(got[s.chat], s.text)
	}
	n := 0
	for c := int64(1000); c < int64(1000+chats); c++ {
		for j, text := range got[c] {
			if want := fmt.Sprintf("echo: m %d of chat %d", j, c); text != want {
				t.Fatalf("chat %d reply %d = %q, want %q (lost, twice or out of order)", c, j, text, want)
			}
			n++
		}
	}
	if n != total {
		t.Fatalf("%d replies, want %d", n, total)
	}
	t.Logf("%d messages in %d chats over %s: every one answered once, in order; the last reply %s after the last message",
		total, chats, sentAll.Round(time.Millisecond), lag.Round(time.Millisecond))
}
