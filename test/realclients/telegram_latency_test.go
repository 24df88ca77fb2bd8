package realclients

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// sendClock is a proxy in front of crabline that notes when each
// sendMessage's answer came back, by the text it carried.
type sendClock struct {
	target *url.URL
	mu     sync.Mutex
	at     map[string]time.Time
	got    chan string
}

func (p *sendClock) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/sendMessage") {
		proxyTo(w, r, p.target)
		return
	}
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(r.Body)
	r.Body.Close()
	text := ""
	var m map[string]any
	if json.Unmarshal(buf.Bytes(), &m) == nil {
		text, _ = m["text"].(string)
	} else if i := bytes.Index(buf.Bytes(), []byte("latency ")); i >= 0 {
		text = string(buf.Bytes()[i : i+len("latency ")+4])
	}
	r.Body = readCloser{bytes.NewReader(buf.Bytes())}
	r.ContentLength = int64(buf.Len())
	proxyTo(w, r, p.target)
	p.mu.Lock()
	p.at[text] = time.Now()
	p.mu.Unlock()
	p.got <- text
}

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }

// latencyRounds injects n messages one at a time and returns, for each,
// the time from the injection to its reply's sendMessage answered.
func latencyRounds(t *testing.T, m crablineManifest, clock *sendClock, n int) []time.Duration {
	t.Helper()
	clock.mu.Lock()
	clock.at = map[string]time.Time{}
	clock.mu.Unlock()
	var out []time.Duration
	for i := range n {
		text := fmt.Sprintf("latency %04d", i)
		start := time.Now()
		m.inject(t, map[string]any{"chatId": 4242, "fromId": 4242, "text": text})
		deadline := time.After(30 * time.Second)
		for done := false; !done; {
			select {
			case got := <-clock.got:
				done = strings.Contains(got, text)
			case <-deadline:
				t.Fatalf("no reply to %q", text)
			}
		}
		clock.mu.Lock()
		for k, at := range clock.at {
			if strings.Contains(k, text) {
				out = append(out, at.Sub(start))
			}
		}
		clock.mu.Unlock()
	}
	slices.Sort(out)
	return out
}

// echoBot is the floor: the least a bot can do against crabline, a
// getUpdates loop that answers each message with one sendMessage.
func echoBot(t *testing.T, apiRoot, token string, stop <-chan struct{}) {
	var offset int64
	for {
		select {
		case <-stop:
			return
		default:
		}
		body, _ := json.Marshal(map[string]any{"offset": offset, "timeout": 1})
		resp, err := http.Post(apiRoot+"/bot"+token+"/getUpdates", "application/json", bytes.NewReader(body))
		if err != nil {
			return
		}
		var ups struct {
			Result []struct {
				UpdateID int64 `json:"update_id"`
				Message  struct {
					Chat struct {
						ID int64 `json:"id"`
					} `json:"chat"`
					Text string `json:"text"`
				} `json:"message"`
			} `json:"result"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&ups)
		resp.Body.Close()
		for _, u := range ups.Result {
			offset = u.UpdateID + 1
			b, _ := json.Marshal(map[string]any{"chat_id": u.Message.Chat.ID, "text": "echo: " + u.Message.Text})
			if r, err := http.Post(apiRoot+"/bot"+token+"/sendMessage", "application/json", bytes.NewReader(b)); err == nil {
				r.Body.Close()
			}
		}
	}
}

// crabline's floor beside switchboard: the same messages answered by an
// echo bot and by the gateway (script model), injection to the reply's
// sendMessage answered, through the same timing proxy. The difference is
// switchboard's share on top of crabline's (which fsyncs every call).
//
//	SWITCHBOARD_REAL_CLIENTS=1 go test -run TelegramLatency -v ./test/realclients
func TestTelegramLatencyAgainstCrabline(t *testing.T) {
	rounds := 40
	if v, err := strconv.Atoi(os.Getenv("SWITCHBOARD_LATENCY_ROUNDS")); err == nil && v > 0 {
		rounds = v
	}
	m := crabline(t)
	target, _ := url.Parse(m.Endpoints.APIRoot)
	clock := &sendClock{target: target, at: map[string]time.Time{}, got: make(chan string, 1024)}
	srv := httptest.NewServer(clock)
	t.Cleanup(srv.Close)

	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { defer close(done); echoBot(t, srv.URL, m.BotToken, stop) }()
	floor := latencyRounds(t, m, clock, rounds)
	close(stop)
	<-done

	proxied := m.via(srv.URL)
	startChannelGateway(t, t.TempDir(), telegramConfig(proxied, `dmPolicy: "open", allowFrom: ["*"]`))
	sb := latencyRounds(t, m, clock, rounds)
	if len(floor) != rounds || len(sb) != rounds {
		t.Fatalf("answered %d (echo bot) and %d (switchboard) of %d", len(floor), len(sb), rounds)
	}
	t.Logf("injection → reply's sendMessage answered, %d messages: echo bot p50 %s p90 %s; switchboard p50 %s p90 %s",
		rounds, floor[rounds/2].Round(10*time.Microsecond), floor[rounds*9/10].Round(10*time.Microsecond),
		sb[rounds/2].Round(10*time.Microsecond), sb[rounds*9/10].Round(10*time.Microsecond))
}
