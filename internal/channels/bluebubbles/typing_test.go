package bluebubbles

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/channels"
	"github.com/switchboard-go/switchboard/internal/channels/bluebubbles/bbtest"
	"github.com/switchboard-go/switchboard/internal/channels/chantest"
)

// The typing indicator shows in the chat while the run runs and is
// cleared when it ends; a server that refuses it (no Private API) still
// gets the message acknowledged.
func TestTypingWhileTheRunRuns(t *testing.T) {
	const password = "bb-password"
	const adaChat = "iMessage;-;+15551234567"
	srv := bbtest.New(t, password)
	a, err := New(Options{Raw: map[string]any{"serverUrl": srv.URL, "password": password,
		"webhookPort": 0, "dmPolicy": "open", "allowFrom": []any{"*"}}})
	if err != nil {
		t.Fatal(err)
	}
	sink := chantest.NewRunSink()
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
	if st := deliver(t, hook, password, bbtest.File(t, "new-message-direct.json")); st != http.StatusOK {
		t.Fatalf("webhook answered %d", st)
	}
	chantest.WaitFor(t, "the typing indicator", func() bool { return len(srv.Typings()) > 0 })
	if got := srv.Typings()[0]; got != (bbtest.Typing{Method: http.MethodPost, Chat: adaChat}) {
		t.Fatalf("first typing call = %+v", got)
	}
	close(sink.Ended)
	chantest.WaitFor(t, "the typing stop", func() bool {
		ts := srv.Typings()
		return ts[len(ts)-1] == bbtest.Typing{Method: http.MethodDelete, Chat: adaChat}
	})

	// The server down: typing fails, the delivery is still acknowledged.
	srv.Down.Store(true)
	if st := deliver(t, hook, password, withText(t, "T2", "while down")); st != http.StatusOK {
		t.Fatalf("webhook answered %d with typing refused", st)
	}
}
