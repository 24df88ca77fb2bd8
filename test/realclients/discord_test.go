package realclients

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	crab "github.com/switchboard-go/switchboard/internal/channels/crabline"
)

// TestDiscordThroughCrabline drives the built gateway as a Discord bot
// against OpenClaw's fake Discord server: guild, thread and direct
// messages answered where they came from, mention gating, an allowlist
// refusal, a reply split at 2,000 characters, a cut gateway connection
// resumed, and a 429 honoured with the message posted once.
func TestDiscordThroughCrabline(t *testing.T) {
	c := crab.Start(t, "discord")
	gwProxy := crab.NewCutProxy(t, crab.Host(c.BaseURL))
	target, _ := url.Parse(c.BaseURL)
	rp := httputil.NewSingleHostReverseProxy(target)
	var limitAttempts atomic.Int32
	restProxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/messages") {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(strings.NewReader(string(body)))
			if strings.Contains(string(body), "limit me") && limitAttempts.Add(1) == 1 {
				w.Header().Set("Retry-After", "0.5")
				w.Header().Set("X-RateLimit-Bucket", "crabline-discord")
				w.WriteHeader(http.StatusTooManyRequests)
				_, _ = io.WriteString(w, `{"message":"You are being rate limited.","retry_after":0.5,"global":false}`)
				return
			}
		}
		rp.ServeHTTP(w, r)
	}))
	defer restProxy.Close()

	const (
		allowed = "135000000000000201"
		other   = "135000000000000202"
		gated   = "135000000000000020"
		thread  = "135000000000000030"
	)
	t.Setenv("SB_TEST_DISCORD_TOKEN", c.BotToken)
	cfg := map[string]any{"models": map[string]any{"providers": map[string]any{"script": map[string]any{"rules": []any{
		map[string]any{"when": map[string]any{"message": "think slowly"}, "reply": "thought it over", "delayMs": 1500}}}}},
		"channels": map[string]any{"discord": map[string]any{
			"token":   map[string]any{"source": "env", "provider": "default", "id": "SB_TEST_DISCORD_TOKEN"},
			"apiRoot": restProxy.URL + "/api", "gatewayUrl": "ws://" + gwProxy.Addr() + "/gateway",
			"dmPolicy": "allowlist", "allowFrom": []any{allowed},
			"guilds": map[string]any{c.Fixture.GuildID: map[string]any{"requireMention": false, "channels": map[string]any{
				c.Fixture.ChannelID: map[string]any{}, gated: map[string]any{"requireMention": true}}}},
		}}}
	stateDir := t.TempDir()
	b, _ := json.Marshal(cfg)
	if err := os.WriteFile(filepath.Join(stateDir, "switchboard.json5"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	base := gateway(t, stateDir)
	crab.WaitFor(t, "the bot to identify", func() bool {
		return len(c.Calls(t, func(r crab.Call) bool { return r.Method == "WS" && r.Body["op"] == float64(2) })) == 1
	})
	guild := func(channelID, sender, content string) map[string]any {
		return map[string]any{"channelId": channelID, "guildId": c.Fixture.GuildID, "senderId": sender, "senderName": "ada", "content": content}
	}
	posted := func(channelID, content string) func() bool {
		return func() bool { return c.DiscordPosted(t, channelID, content) }
	}

	t.Run("guild channel", func(t *testing.T) {
		c.Inject(t, guild(c.Fixture.ChannelID, other, "hello guild"))
		crab.WaitFor(t, "the reply", posted(c.Fixture.ChannelID, "echo: ada: hello guild"))
		s := session(t, base, "agent:main:discord:channel:"+c.Fixture.ChannelID)
		if s["displayName"] != "Crabline Discord Guild#crabline-channel" || s["channel"] != "discord" {
			t.Errorf("session %v", s)
		}
		if d, _ := s["deliveryContext"].(map[string]any); d["to"] != "channel:"+c.Fixture.ChannelID {
			t.Errorf("deliveryContext %v", s["deliveryContext"])
		}
	})
	t.Run("thread", func(t *testing.T) {
		m := guild(thread, other, "in a thread")
		m["parentChannelId"] = c.Fixture.ChannelID
		c.Inject(t, m)
		crab.WaitFor(t, "the reply in the thread", posted(thread, "echo: ada: in a thread"))
		session(t, base, "agent:main:discord:channel:"+c.Fixture.ChannelID+":thread:"+thread)
	})
	t.Run("requireMention", func(t *testing.T) {
		c.Inject(t, guild(gated, other, "nobody called me"))
		c.Inject(t, guild(gated, other, "<@"+c.BotUserID+"> you there?"))
		crab.WaitFor(t, "the mentioned reply", posted(gated, "echo: ada: you there?"))
		if posted(gated, "echo: ada: nobody called me")() {
			t.Error("an unmentioned message was answered")
		}
	})
	t.Run("direct message and allowlist", func(t *testing.T) {
		c.Inject(t, map[string]any{"channelId": crab.DiscordDirectChannelID(c.BotUserID, other), "senderId": other, "content": "let me in"})
		dm := crab.DiscordDirectChannelID(c.BotUserID, allowed)
		c.Inject(t, map[string]any{"channelId": dm, "senderId": allowed, "content": "hello dm"})
		crab.WaitFor(t, "the DM reply", posted(dm, "echo: hello dm"))
		if len(c.DiscordPosts(t, crab.DiscordDirectChannelID(c.BotUserID, other))) != 0 {
			t.Error("a sender outside allowFrom was answered")
		}
	})
	t.Run("a reply over 2,000 characters is split", func(t *testing.T) {
		long := strings.TrimSpace(strings.Repeat("word ", 399)) // 1,994 characters in; the reply has 2,005
		c.Inject(t, guild(c.Fixture.ChannelID, other, long))
		crab.WaitFor(t, "two parts", func() bool {
			n := 0
			for _, p := range c.DiscordPosts(t, c.Fixture.ChannelID) {
				if s, _ := p.Body["content"].(string); strings.Contains(s, "word word") {
					n++
				}
			}
			return n == 2
		})
	})
	t.Run("a cut gateway connection resumes", func(t *testing.T) {
		resumes := func() int {
			return len(c.Calls(t, func(r crab.Call) bool { return r.Method == "WS" && r.Body["op"] == float64(6) }))
		}
		before := resumes()
		gwProxy.Cut()
		crab.WaitFor(t, "a RESUME", func() bool { return resumes() > before })
		c.Inject(t, guild(c.Fixture.ChannelID, other, "after the cut"))
		crab.WaitFor(t, "the reply after the cut", posted(c.Fixture.ChannelID, "echo: ada: after the cut"))
		if n := len(c.Calls(t, func(r crab.Call) bool { return r.Method == "WS" && r.Body["op"] == float64(2) })); n != 1 {
			t.Errorf("%d IDENTIFYs, want 1: the session resumed", n)
		}
	})
	t.Run("typing while the run runs", func(t *testing.T) {
		c.Inject(t, guild(c.Fixture.ChannelID, other, "think slowly"))
		crab.WaitFor(t, "the slow reply", posted(c.Fixture.ChannelID, "thought it over"))
		typing, reply := -1, -1
		for i, r := range c.Calls(t, func(crab.Call) bool { return true }) {
			switch {
			case r.Method == http.MethodPost && r.Path == "/api/v10/channels/"+c.Fixture.ChannelID+"/typing" && typing < 0:
				typing = i
			case r.Method == http.MethodPost && r.Body["content"] == "thought it over":
				reply = i
			}
		}
		if typing < 0 || typing > reply {
			t.Errorf("typing at call %d, the reply at %d: want the typing first", typing, reply)
		}
	})
	t.Run("a 429 is honoured and the reply posted once", func(t *testing.T) {
		c.Inject(t, guild(c.Fixture.ChannelID, other, "limit me"))
		crab.WaitFor(t, "the limited reply", posted(c.Fixture.ChannelID, "echo: ada: limit me"))
		n := 0
		for _, p := range c.DiscordPosts(t, c.Fixture.ChannelID) {
			if p.Body["content"] == "echo: ada: limit me" {
				n++
			}
		}
		if n != 1 || limitAttempts.Load() != 2 {
			t.Errorf("posted %d times after %d attempts; want once after 2", n, limitAttempts.Load())
		}
	})
}

// session reads a session row over the HTTP API.
func session(t *testing.T, base, key string) map[string]any {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+"/api/sessions/"+url.PathEscape(key), nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET session %s: %s %s", key, resp.Status, body)
	}
	var out map[string]any
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatal(err)
	}
	if s, ok := out["session"].(map[string]any); ok {
		return s
	}
	return out
}
