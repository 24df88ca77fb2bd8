package bluebubbles

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/channels"
	"github.com/switchboard-go/switchboard/internal/channels/bluebubbles/bbtest"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/outbox"
	"github.com/switchboard-go/switchboard/internal/testkit"
)

// echoSink answers every message at once through the adapter; a repeated
// event id is a duplicate, as the Router's idempotency makes it.
type echoSink struct {
	a    *Adapter
	mu   sync.Mutex
	got  []channels.Inbound
	seen map[string]int
}

func (s *echoSink) Handle(ctx context.Context, m channels.Inbound) (channels.Outcome, error) {
	s.mu.Lock()
	s.got = append(s.got, m)
	if s.seen == nil {
		s.seen = map[string]int{}
	}
	s.seen[m.EventID]++
	dup := s.seen[m.EventID] > 1
	s.mu.Unlock()
	if dup {
		return channels.Outcome{Duplicate: true}, nil
	}
	return channels.Outcome{}, s.a.Send(ctx, channels.Outbound{AccountID: m.AccountID, To: m.To, Text: "echo: " + m.Text, IdempotencyKey: "k-" + m.EventID})
}

func (s *echoSink) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.got)
}

func (s *echoSink) last() channels.Inbound {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.got[len(s.got)-1]
}

func deliver(t *testing.T, hook, password string, body []byte) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, hook+"?password="+password, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// withText returns the direct testdata delivery with another guid and
// text.
func withText(t *testing.T, guid, text string) []byte {
	return bbtest.Delivery(t, "new-message-direct.json", guid, text, "")
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testkit.WaitFor(t, 10*time.Second, what, cond)
}

func TestAdapterAgainstFakeServer(t *testing.T) {
	const password = "bb-password"
	srv := bbtest.New(t, password)
	const (
		ada       = "+15551234567"
		adaChat   = "iMessage;-;+15551234567"
		groupChat = "iMessage;+;chat123456789"
		stranger  = "+15559990000"
	)
	block := map[string]any{
		"serverUrl": srv.URL, "password": map[string]any{"source": "env", "provider": "default", "id": "BB_PW"},
		"webhookPort": 0, "dmPolicy": "pairing", "allowFrom": []any{ada},
		"groupPolicy": "open", "groups": map[string]any{groupChat: map[string]any{"requireMention": false}},
		"actions": map[string]any{"reactions": true}, // accepted, no effect
	}
	pairs := channels.NewPairing(t.TempDir() + "/pairing.json")
	a, err := New(Options{Raw: block, Getenv: func(k string) string {
		if k == "BB_PW" {
			return password
		}
		return ""
	}, Backoff: func(int) time.Duration { return 20 * time.Millisecond },
		Paired: func(account, sender string) bool { return pairs.Approved(Channel, account, sender) },
		Pair: func(ctx context.Context, account, sender, name string) (string, bool, error) {
			return pairs.Request(Channel, account, sender, name)
		}})
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
	hook := a.WebhookURL(channels.DefaultAccountID)
	waitFor(t, "the ping", func() bool { return a.Status()[0].Connected })

	t.Run("direct message answered in the direct chat", func(t *testing.T) {
		if st := deliver(t, hook, password, bbtest.File(t, "new-message-direct.json")); st != http.StatusOK {
			t.Fatalf("webhook answered %d", st)
		}
		if srv.Sent(adaChat, "echo: hello") != 1 {
			t.Fatal("no reply in the direct chat")
		}
		in := sink.last()
		r := channels.Resolve(&config.Config{Session: config.SessionConfig{DMScope: channels.DMScopePerChannelPeer}}, in)
		if in.SenderID != ada || in.ChatType != channels.ChatDirect || r.SessionKey != "agent:main:bluebubbles:direct:"+ada {
			t.Fatalf("inbound %+v routed to %q", in, r.SessionKey)
		}
	})
	t.Run("group message answered in the group", func(t *testing.T) {
		if st := deliver(t, hook, password, bbtest.File(t, "new-message-group.json")); st != http.StatusOK {
			t.Fatalf("webhook answered %d", st)
		}
		if srv.Sent(groupChat, "echo: hi all") != 1 {
			t.Fatal("no reply in the group")
		}
		in := sink.last()
		r := channels.Resolve(&config.Config{}, in)
		if in.ChatTitle != "Book Club" || r.SessionKey != "agent:main:bluebubbles:group:imessage;+;chat123456789" {
			t.Fatalf("inbound %+v routed to %q", in, r.SessionKey)
		}
	})
	t.Run("a wrong password is refused with 401 and changes nothing", func(t *testing.T) {
		before := sink.count()
		if st := deliver(t, hook, "guess", withText(t, "A1", "forged")); st != http.StatusUnauthorized {
			t.Fatalf("webhook answered %d, want 401", st)
		}
		if sink.count() != before || srv.Sent(adaChat, "echo: forged") != 0 {
			t.Fatal("a forged delivery got through")
		}
	})
	t.Run("a replayed delivery answers once", func(t *testing.T) {
		body := withText(t, "A2", "once")
		for range 2 {
			if st := deliver(t, hook, password, body); st != http.StatusOK {
				t.Fatalf("webhook answered %d", st)
			}
		}
		if n := srv.Sent(adaChat, "echo: once"); n != 1 {
			t.Fatalf("%d replies, want 1", n)
		}
	})
	t.Run("an unknown sender gets one pairing code", func(t *testing.T) {
		for i, text := range []string{"let me in", "please"} {
			b := bbtest.Delivery(t, "new-message-direct.json", "P"+string(rune('0'+i)), text, stranger)
			if st := deliver(t, hook, password, b); st != http.StatusOK {
				t.Fatalf("webhook answered %d", st)
			}
		}
		if n := srv.Sent("iMessage;-;"+stranger, ""); n != 1 {
			t.Fatalf("%d answers to the stranger, want 1 (the pairing code)", n)
		}
		if list, _ := pairs.List(Channel); len(list) != 1 || list[0].SenderID != stranger {
			t.Fatalf("pending = %+v", list)
		}
	})
	t.Run("the server down, then back: retried by the outbox, sent once", func(t *testing.T) {
		srv.Down.Store(true)
		out := channels.Outbound{To: "bluebubbles:chat_guid:" + adaChat, Text: "echo: later", IdempotencyKey: "d1"}
		if err := a.Send(context.Background(), out); err == nil || errors.Is(err, outbox.ErrPermanent) {
			t.Fatalf("send to a server that is down: %v", err)
		}
		srv.Down.Store(false)
		if err := a.Send(context.Background(), out); err != nil {
			t.Fatal(err)
		}
		if n := srv.Sent(adaChat, "echo: later"); n != 1 {
			t.Fatalf("%d sends, want 1", n)
		}
	})
	t.Run("markdown is sent as plain text; a long text is split", func(t *testing.T) {
		long := "**bold** " + strings.Repeat("word ", 1000)
		if err := a.Send(context.Background(), channels.Outbound{To: "imessage:" + ada, Text: long, IdempotencyKey: "l1"}); err != nil {
			t.Fatal(err)
		}
		sends := srv.Sends()
		last := sends[len(sends)-2:]
		if first := last[0]["message"].(string); !strings.HasPrefix(first, "bold word") || len([]rune(first)) > DefaultTextLimit {
			t.Fatalf("first piece starts %q", first[:12])
		}
		if last[0]["tempGuid"] != "l1#0" || last[1]["tempGuid"] != "l1#1" {
			t.Fatalf("tempGuids %v %v", last[0]["tempGuid"], last[1]["tempGuid"])
		}
	})
	st := a.Status()[0]
	if !st.Running || st.Received == 0 || st.Delivered == 0 || st.Retried == 0 {
		t.Fatalf("status = %+v", st)
	}
}

func TestWrongServerPasswordShowsInStatus(t *testing.T) {
	srv := bbtest.New(t, "right")
	a, err := New(Options{Raw: map[string]any{"serverUrl": srv.URL, "password": "wrong", "webhookPort": 0}})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Start(context.Background(), channels.SinkFunc(func(context.Context, channels.Inbound) (channels.Outcome, error) {
		return channels.Outcome{}, nil
	})); err != nil {
		t.Fatal(err)
	}
	defer a.Stop(context.Background())
	waitFor(t, "the refusal", func() bool { return strings.Contains(a.Status()[0].LastError, "401") })
	if a.Status()[0].Connected {
		t.Fatal("connected with a refused password")
	}
}

func TestRateLimitHonoursRetryAfter(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "7")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(`{"status":429,"message":"Too many requests"}`))
	}))
	defer srv.Close()
	a, err := New(Options{Raw: map[string]any{"serverUrl": srv.URL, "password": "p"}})
	if err != nil {
		t.Fatal(err)
	}
	err = a.Send(context.Background(), channels.Outbound{To: "bluebubbles:+1555", Text: "hi", IdempotencyKey: "r"})
	var ra *channels.RetryAfterError
	if !errors.As(err, &ra) || ra.After != 7*time.Second {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(err.Error(), "password=p") {
		t.Fatalf("the error shows the password: %v", err)
	}
}
