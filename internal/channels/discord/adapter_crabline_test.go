package discord

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/channels"
	"github.com/switchboard-go/switchboard/internal/channels/crabline"
)

// echoSink answers every message at once through the adapter, as the
// channel layer would through the outbox.
type echoSink struct {
	a   *Adapter
	mu  sync.Mutex
	got []channels.Inbound
}

func (s *echoSink) Handle(ctx context.Context, m channels.Inbound) (channels.Outcome, error) {
	s.mu.Lock()
	s.got = append(s.got, m)
	s.mu.Unlock()
	reply := "echo: " + m.Text
	if m.Text == "long" {
		reply = strings.Repeat("lorem ipsum ", 375) // 4,500 characters
	}
	return channels.Outcome{}, s.a.Send(ctx, channels.Outbound{AccountID: m.AccountID, To: m.To, Text: reply, IdempotencyKey: "k-" + m.EventID})
}

func (s *echoSink) inbound(text string) (channels.Inbound, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.got {
		if m.Text == text {
			return m, true
		}
	}
	return channels.Inbound{}, false
}

func hasPost(c *crabline.Server, t *testing.T, channelID, content string) func() bool {
	return func() bool { return c.DiscordPosted(t, channelID, content) }
}

func TestAdapterAgainstCrabline(t *testing.T) {
	c := crabline.Start(t, "discord")
	gwProxy := crabline.NewCutProxy(t, crabline.Host(c.BaseURL))
	// The REST proxy refuses the first post of "limit me" with a 429.
	target, _ := url.Parse(c.BaseURL)
	var limited, limitedSeen atomic.Int32
	rp := httputil.NewSingleHostReverseProxy(target)
	restProxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/messages") {
			body, _ := httputil.DumpRequest(r, true)
			if strings.Contains(string(body), "echo: limit me") {
				limitedSeen.Add(1)
				if limited.Add(1) == 1 {
					w.Header().Set("Retry-After", "0.3")
					w.Header().Set("X-RateLimit-Bucket", "crabline-discord")
					w.WriteHeader(http.StatusTooManyRequests)
					_, _ = w.Write([]byte(`{"message":"You are being rate limited.","retry_after":0.3,"global":false}`))
					return
				}
			}
		}
		rp.ServeHTTP(w, r)
	}))
	defer restProxy.Close()

	const (
		allowedUser = "135000000000000201"
		otherUser   = "135000000000000202"
		gatedChan   = "135000000000000020"
		thread      = "135000000000000030"
	)
	block := map[string]any{
		"token":   map[string]any{"source": "env", "provider": "default", "id": "CRAB_DISCORD_TOKEN"},
		"apiRoot": restProxy.URL + "/api", "gatewayUrl": "ws://" + gwProxy.Addr() + "/gateway",
		"dmPolicy": "allowlist", "allowFrom": []any{allowedUser},
		"guilds": map[string]any{c.Fixture.GuildID: map[string]any{"requireMention": false, "channels": map[string]any{
			c.Fixture.ChannelID: map[string]any{}, gatedChan: map[string]any{"requireMention": true}}}},
		"streaming": map[string]any{"mode": "off"},
	}
	a, err := New(Options{Block: block, Getenv: func(k string) string {
		if k == "CRAB_DISCORD_TOKEN" {
			return c.BotToken
		}
		return ""
	}, Backoff: func(int) time.Duration { return 50 * time.Millisecond }})
	if err != nil {
		t.Fatal(err)
	}
	sink := &echoSink{a: a}
	if err := a.Start(context.Background(), sink); err != nil {
		t.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := a.Stop(ctx); err != nil {
			t.Error(err)
		}
	}()
	crabline.WaitFor(t, "the gateway to be ready", func() bool { return a.Status()[0].Connected })
	guildMsg := func(channelID, sender, content string) map[string]any {
		return map[string]any{"channelId": channelID, "guildId": c.Fixture.GuildID, "senderId": sender, "senderName": "ada", "content": content}
	}

	t.Run("guild message answered in its channel", func(t *testing.T) {
		c.Inject(t, guildMsg(c.Fixture.ChannelID, otherUser, "hello guild"))
		crabline.WaitFor(t, "the reply", hasPost(c, t, c.Fixture.ChannelID, "echo: hello guild"))
		in, _ := sink.inbound("hello guild")
		if in.ChatType != channels.ChatChannel || in.ChatID != c.Fixture.ChannelID || in.To != "channel:"+c.Fixture.ChannelID ||
			!strings.HasSuffix(in.ChatTitle, "#crabline-channel") {
			t.Errorf("inbound %+v", in)
		}
		for _, p := range c.DiscordPosts(t, c.Fixture.ChannelID) {
			if p.Body["enforce_nonce"] != true || p.Body["nonce"] == nil {
				t.Errorf("post without an enforced nonce: %v", p.Body)
			}
			if am, _ := p.Body["allowed_mentions"].(map[string]any); am == nil || len(am["parse"].([]any)) != 0 {
				t.Errorf("post may mention: %v", p.Body["allowed_mentions"])
			}
		}
	})
	t.Run("thread message keeps its parent and thread", func(t *testing.T) {
		m := guildMsg(thread, otherUser, "in a thread")
		m["parentChannelId"] = c.Fixture.ChannelID
		c.Inject(t, m)
		crabline.WaitFor(t, "the reply in the thread", hasPost(c, t, thread, "echo: in a thread"))
		in, _ := sink.inbound("in a thread")
		if in.ChatID != c.Fixture.ChannelID || in.ThreadID != thread {
			t.Errorf("inbound %+v", in)
		}
	})
	t.Run("requireMention gates", func(t *testing.T) {
		c.Inject(t, guildMsg(gatedChan, otherUser, "nobody called me"))
		c.Inject(t, guildMsg(gatedChan, otherUser, "<@"+c.BotUserID+"> called me"))
		crabline.WaitFor(t, "the mentioned reply", hasPost(c, t, gatedChan, "echo: called me"))
		if hasPost(c, t, gatedChan, "echo: nobody called me")() {
			t.Error("an unmentioned message was answered")
		}
	})
	t.Run("direct messages and the allowlist", func(t *testing.T) {
		c.Inject(t, map[string]any{"channelId": crabline.DiscordDirectChannelID(c.BotUserID, otherUser), "senderId": otherUser, "content": "let me in"})
		dm := crabline.DiscordDirectChannelID(c.BotUserID, allowedUser)
		c.Inject(t, map[string]any{"channelId": dm, "senderId": allowedUser, "content": "hello dm"})
		crabline.WaitFor(t, "the DM reply", hasPost(c, t, dm, "echo: hello dm"))
		if _, ok := sink.inbound("let me in"); ok {
			t.Error("a sender outside allowFrom reached the sink")
		}
		in, _ := sink.inbound("hello dm")
		if in.ChatType != channels.ChatDirect || in.To != "user:"+allowedUser {
			t.Errorf("inbound %+v", in)
		}
	})
	t.Run("a long reply is split", func(t *testing.T) {
		c.Inject(t, guildMsg(c.Fixture.ChannelID, otherUser, "long"))
		crabline.WaitFor(t, "three posts", func() bool {
			n := 0
			for _, p := range c.DiscordPosts(t, c.Fixture.ChannelID) {
				if s, _ := p.Body["content"].(string); strings.HasPrefix(s, "lorem") || strings.HasPrefix(s, "ipsum") {
					n++
				}
			}
			return n == 3
		})
	})
	t.Run("a cut gateway connection resumes", func(t *testing.T) {
		before := len(c.Calls(t, func(r crabline.Call) bool { return r.Method == "WS" && r.Body["op"] == float64(opResume) }))
		gwProxy.Cut()
		crabline.WaitFor(t, "a RESUME", func() bool {
			return len(c.Calls(t, func(r crabline.Call) bool { return r.Method == "WS" && r.Body["op"] == float64(opResume) })) > before
		})
		crabline.WaitFor(t, "ready again", func() bool { return a.Status()[0].Connected })
		c.Inject(t, guildMsg(c.Fixture.ChannelID, otherUser, "after the cut"))
		crabline.WaitFor(t, "the reply after the cut", hasPost(c, t, c.Fixture.ChannelID, "echo: after the cut"))
		if n := len(c.Calls(t, func(r crabline.Call) bool { return r.Method == "WS" && r.Body["op"] == float64(opIdentify) })); n != 1 {
			t.Errorf("%d IDENTIFYs, want 1 (the session resumed)", n)
		}
	})
	t.Run("a 429 is honoured and the message posted once", func(t *testing.T) {
		c.Inject(t, guildMsg(c.Fixture.ChannelID, otherUser, "limit me"))
		crabline.WaitFor(t, "the limited reply", hasPost(c, t, c.Fixture.ChannelID, "echo: limit me"))
		n := 0
		for _, p := range c.DiscordPosts(t, c.Fixture.ChannelID) {
			if p.Body["content"] == "echo: limit me" {
				n++
			}
		}
		if n != 1 || limitedSeen.Load() != 2 {
			t.Errorf("posted %d times after %d attempts; want once after 2", n, limitedSeen.Load())
		}
	})
	if st := a.Status()[0]; st.Received < 6 || st.Delivered < 6 || st.Retried != 0 {
		t.Errorf("status %+v", st)
	}
}

func TestAdapterPairingAgainstCrabline(t *testing.T) {
	c := crabline.Start(t, "discord")
	const user = "135000000000000203"
	var approved atomic.Bool
	var asked atomic.Int32
	a, err := New(Options{Block: map[string]any{"token": c.BotToken, "apiRoot": c.Endpoints.APIRoot, "gatewayUrl": c.Endpoints.GatewayURL},
		Paired: func(account, sender string) bool { return approved.Load() && account == "default" && sender == user },
		Pair: func(_ context.Context, _, sender, _ string) (string, bool, error) {
			return "ABCD2345", asked.Add(1) == 1, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	sink := &echoSink{a: a}
	if err := a.Start(context.Background(), sink); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = a.Stop(context.Background()) }()
	crabline.WaitFor(t, "the gateway to be ready", func() bool { return a.Status()[0].Connected })
	dm := crabline.DiscordDirectChannelID(c.BotUserID, user)
	c.Inject(t, map[string]any{"channelId": dm, "senderId": user, "content": "hi"})
	c.Inject(t, map[string]any{"channelId": dm, "senderId": user, "content": "hi again"})
	crabline.WaitFor(t, "the pairing code", func() bool {
		for _, p := range c.DiscordPosts(t, dm) {
			if s, _ := p.Body["content"].(string); strings.Contains(s, "switchboard pairing approve discord ABCD2345") {
				return true
			}
		}
		return false
	})
	crabline.WaitFor(t, "the second request", func() bool { return asked.Load() == 2 })
	if n := len(c.DiscordPosts(t, dm)); n != 1 {
		t.Errorf("%d posts before approval, want the one pairing code", n)
	}
	approved.Store(true)
	c.Inject(t, map[string]any{"channelId": dm, "senderId": user, "content": "approved now"})
	crabline.WaitFor(t, "the answer after approval", hasPost(c, t, dm, "echo: approved now"))
}
