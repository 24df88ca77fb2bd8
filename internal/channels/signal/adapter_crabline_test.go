package signal

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/channels"
	"github.com/switchboard-go/switchboard/internal/channels/chantest"
	"github.com/switchboard-go/switchboard/internal/channels/crabline"
	"github.com/switchboard-go/switchboard/internal/config"
)

func TestAdapterAgainstCrabline(t *testing.T) {
	c := crabline.Start(t, "signal")
	// The event stream goes through a proxy whose connections the test
	// cuts; the RPC through one that refuses the first send of "flaky"
	// with a 503 (the daemon down).
	target, _ := url.Parse(c.BaseURL)
	cut := crabline.NewCutProxy(t, crabline.Host(c.BaseURL))
	var flaky atomic.Int32
	rp := httputil.NewSingleHostReverseProxy(target)
	rpc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/events" {
			// events go through the cut proxy
			r.URL.Host, r.Host = cut.Addr(), target.Host
		}
		body, _ := httputil.DumpRequest(r, true)
		if strings.Contains(string(body), "echo: flaky") && flaky.Add(1) == 1 {
			http.Error(w, "daemon restarting", http.StatusServiceUnavailable)
			return
		}
		if r.URL.Path == "/api/v1/events" {
			pr := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: cut.Addr()})
			pr.FlushInterval = -1
			r.Host = target.Host
			pr.ServeHTTP(w, r)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	defer rpc.Close()

	const (
		ada     = "+15550001001"
		bob     = "+15550001002"
		unknown = "+15550001003"
		group   = "AbCdEfGh1234567890xyZ+/w=="
		other   = "abcdefgh1234567890xyz+/w=="
	)
	block := map[string]any{
		"account": c.Account, "httpUrl": rpc.URL,
		"dmPolicy": "pairing", "allowFrom": []any{ada},
		"groupPolicy": "open", "groups": map[string]any{group: map[string]any{"requireMention": false},
			other: map[string]any{"requireMention": true}},
		"historyLimit": 5, // accepted, no effect
	}
	pairs := channels.NewPairing(t.TempDir() + "/pairing.json")
	a, err := New(Options{Raw: block, Backoff: func(int) time.Duration { return 50 * time.Millisecond },
		Paired: func(account, sender string) bool { return pairs.Approved(Channel, account, sender) },
		Pair: func(ctx context.Context, account, sender, name string) (string, bool, error) {
			return pairs.Request(Channel, account, sender, name)
		}})
	if err != nil {
		t.Fatal(err)
	}
	sink := &chantest.EchoSink{Send: a.Send}
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
	crabline.WaitFor(t, "the event stream", func() bool { return a.Status()[0].Connected })
	dm := func(from, text string) map[string]any {
		return map[string]any{"sourceNumber": from, "sourceName": "Ada", "text": text}
	}

	t.Run("direct message answered in the direct chat", func(t *testing.T) {
		c.Inject(t, dm(ada, "hello"))
		crabline.WaitFor(t, "the reply", func() bool { return c.SignalSent(t, "recipient", ada, "echo: hello") > 0 })
		in, _ := sink.Inbound("hello")
		if in.ChatType != channels.ChatDirect || in.To != "signal:"+ada || in.SenderID != ada {
			t.Fatalf("inbound = %+v", in)
		}
	})
	t.Run("group message answered in the group, its id's case kept", func(t *testing.T) {
		c.Inject(t, map[string]any{"groupId": group, "sourceNumber": bob, "sourceName": "Bob", "text": "hi group"})
		crabline.WaitFor(t, "the group reply", func() bool { return c.SignalSent(t, "groupId", group, "echo: hi group") > 0 })
		in, _ := sink.Inbound("hi group")
		r := channels.Resolve(&config.Config{}, in)
		if want := "agent:main:signal:group:" + group; r.SessionKey != want {
			t.Fatalf("session key = %q, want %q", r.SessionKey, want)
		}
	})
	t.Run("a group that requires a mention drops an unmentioned message", func(t *testing.T) {
		c.Inject(t, map[string]any{"groupId": other, "sourceNumber": bob, "text": "not for you"})
		c.Inject(t, map[string]any{"groupId": group, "sourceNumber": bob, "text": "marker"})
		crabline.WaitFor(t, "the marker reply", func() bool { return c.SignalSent(t, "groupId", group, "echo: marker") > 0 })
		if _, n := sink.Inbound("not for you"); n != 0 {
			t.Fatal("an unmentioned message in a requireMention group reached the sink")
		}
	})
	t.Run("an unknown sender gets a pairing code once, then is let in", func(t *testing.T) {
		c.Inject(t, dm(unknown, "let me in"))
		crabline.WaitFor(t, "the pairing code", func() bool { return c.SignalSent(t, "recipient", unknown, "Pairing code: ") > 0 })
		c.Inject(t, dm(unknown, "again"))
		c.Inject(t, dm(ada, "after pairing ask"))
		crabline.WaitFor(t, "the marker", func() bool { return c.SignalSent(t, "recipient", ada, "echo: after pairing ask") > 0 })
		if n := c.SignalSent(t, "recipient", unknown, "Pairing code: "); n != 1 {
			t.Fatalf("%d pairing answers, want 1", n)
		}
		list, _ := pairs.List(Channel)
		if len(list) != 1 || list[0].SenderID != unknown {
			t.Fatalf("pending = %+v", list)
		}
		if _, err := pairs.Approve(Channel, list[0].Code); err != nil {
			t.Fatal(err)
		}
		c.Inject(t, dm(unknown, "paired now"))
		crabline.WaitFor(t, "the paired reply", func() bool { return c.SignalSent(t, "recipient", unknown, "echo: paired now") > 0 })
	})
	t.Run("a cut event stream reconnects and loses nothing", func(t *testing.T) {
		cut.Cut()
		c.Inject(t, dm(ada, "while cut 1"))
		c.Inject(t, dm(ada, "while cut 2"))
		crabline.WaitFor(t, "both replies", func() bool {
			return c.SignalSent(t, "recipient", ada, "echo: while cut 1") == 1 && c.SignalSent(t, "recipient", ada, "echo: while cut 2") == 1
		})
		for _, text := range []string{"while cut 1", "while cut 2"} {
			if _, n := sink.Inbound(text); n < 1 {
				t.Fatalf("%q never arrived", text)
			}
		}
	})
	t.Run("the daemon down for a send: retried by the outbox, sent once", func(t *testing.T) {
		err := a.Send(context.Background(), channels.Outbound{To: "signal:" + ada, Text: "echo: flaky", IdempotencyKey: "f1"})
		if err == nil {
			t.Fatal("send through a refusing daemon succeeded")
		}
		if err := a.Send(context.Background(), channels.Outbound{To: "signal:" + ada, Text: "echo: flaky", IdempotencyKey: "f1"}); err != nil {
			t.Fatal(err)
		}
		if n := c.SignalSent(t, "recipient", ada, "echo: flaky"); n != 1 {
			t.Fatalf("%d sends, want 1", n)
		}
	})
	t.Run("markdown becomes text styles; a long text is split", func(t *testing.T) {
		long := "**bold** " + strings.Repeat("word ", 1000) // 5,009 characters
		if err := a.Send(context.Background(), channels.Outbound{To: "signal:group:" + group, Text: long, IdempotencyKey: "l1"}); err != nil {
			t.Fatal(err)
		}
		var pieces []map[string]any
		for _, p := range c.SignalSends(t) {
			if p["groupId"] == group && strings.Contains(p["message"].(string), "word word") {
				pieces = append(pieces, p)
			}
		}
		if len(pieces) != 2 {
			t.Fatalf("%d pieces, want 2", len(pieces))
		}
		if msg := pieces[0]["message"].(string); !strings.HasPrefix(msg, "bold word") || len([]rune(msg)) > DefaultTextLimit {
			t.Fatalf("first piece starts %q (%d chars)", msg[:20], len([]rune(msg)))
		}
		if st, _ := pieces[0]["textStyle"].([]any); len(st) != 1 || st[0] != "0:4:BOLD" {
			t.Fatalf("textStyle = %v", pieces[0]["textStyle"])
		}
	})
	st := a.Status()[0]
	if !st.Running || st.Received == 0 || st.Delivered == 0 || st.Retried == 0 {
		t.Fatalf("status = %+v", st)
	}
}
