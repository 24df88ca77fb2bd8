package whatsapp

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/channels"
	"github.com/switchboard-go/switchboard/internal/channels/crabline"
)

// runSink is the sink of the typing test.
type runSink struct {
	mu   sync.Mutex
	seen map[string]bool
}

// Handle starts a run for "think hard" and, as the Router does, answers a
// message whose event was handled before as a duplicate.
func (s *runSink) Handle(_ context.Context, m channels.Inbound) (channels.Outcome, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	dup := s.seen[m.EventID]
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	s.seen[m.EventID] = true
	if m.Text == "think hard" {
		return channels.Outcome{RunID: "run-1", Duplicate: dup}, nil
	}
	return channels.Outcome{Duplicate: dup}, nil
}

// readCalls returns the accepted mark-read calls crabline recorded.
func readCalls(t *testing.T, c *crabline.Server) []map[string]any {
	var out []map[string]any
	for _, call := range c.Calls(t, func(call crabline.Call) bool {
		return call.Accepted && strings.HasSuffix(call.Path, "/messages") && call.Body["status"] == "read"
	}) {
		out = append(out, call.Body)
	}
	return out
}

// A message that starts a run is marked read with the typing indicator,
// once; one that starts none is not marked read (sendReadReceipts unset).
func TestTypingIndicatorWithTheReadMark(t *testing.T) {
	c := crabline.Start(t, "whatsapp")
	const ada = "15550001001"
	a, err := New(Options{Raw: map[string]any{
		"accessToken": c.AccessToken, "phoneNumberId": c.PhoneNumberID, "appSecret": appSecret,
		"verifyToken": "v", "apiRoot": c.BaseURL + "/" + c.GraphVersion, "webhookPort": 0,
		"dmPolicy": "allowlist", "allowFrom": []any{"+" + ada},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Start(context.Background(), &runSink{}); err != nil {
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
	dm := func(text string) map[string]any {
		return map[string]any{"chatJid": ada + "@s.whatsapp.net", "senderJid": ada + "@s.whatsapp.net", "text": text}
	}
	messageID := func(payload []byte) string {
		var p struct {
			Entry []struct {
				Changes []struct {
					Value struct {
						Messages []struct{ ID string } `json:"messages"`
					} `json:"value"`
				} `json:"changes"`
			} `json:"entry"`
		}
		if err := json.Unmarshal(payload, &p); err != nil || len(p.Entry) == 0 || len(p.Entry[0].Changes) == 0 || len(p.Entry[0].Changes[0].Value.Messages) == 0 {
			t.Fatalf("no message id in %s", payload)
		}
		return p.Entry[0].Changes[0].Value.Messages[0].ID
	}

	st, quiet := relay(t, c, hook, appSecret, dm("no run"))
	if st != http.StatusOK {
		t.Fatalf("webhook answered %d", st)
	}
	st, payload := relay(t, c, hook, appSecret, dm("think hard"))
	if st != http.StatusOK {
		t.Fatalf("webhook answered %d", st)
	}
	id := messageID(payload)
	crabline.WaitFor(t, "the typing indicator", func() bool { return len(readCalls(t, c)) > 0 })
	// A redelivery is a duplicate and shows nothing again.
	if st := post(t, hook, appSecret, payload); st != http.StatusOK {
		t.Fatalf("redelivery answered %d", st)
	}
	if err := a.Stop(context.Background()); err != nil { // waits for every mark-read call
		t.Fatal(err)
	}
	calls := readCalls(t, c)
	if len(calls) != 1 {
		t.Fatalf("%d mark-read calls, want 1: %v", len(calls), calls)
	}
	ti, _ := calls[0]["typing_indicator"].(map[string]any)
	if calls[0]["message_id"] != id || calls[0]["messaging_product"] != "whatsapp" || ti["type"] != "text" {
		t.Fatalf("mark-read call = %v, want message %s with typing_indicator {type: text}", calls[0], id)
	}
	if calls[0]["message_id"] == messageID(quiet) {
		t.Fatal("a message that started no run was marked read")
	}
}
