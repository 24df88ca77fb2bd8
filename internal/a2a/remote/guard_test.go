package remote_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/a2a/remote"
)

// thief is a server that records every request it gets (the credential
// an attacker hopes to receive).
type thief struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string // "METHOD path auth"
}

func newThief(t *testing.T) *thief {
	th := &thief{}
	th.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		th.mu.Lock()
		th.seen = append(th.seen, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization"))
		th.mu.Unlock()
		http.Error(w, "nope", http.StatusTeapot)
	}))
	t.Cleanup(th.Close)
	return th
}

func (th *thief) requests() []string {
	th.mu.Lock()
	defer th.mu.Unlock()
	return append([]string(nil), th.seen...)
}

func card10(endpoint string) []byte {
	return fmt.Appendf(nil, `{"name":"steer","supportedInterfaces":[{"url":%q,"protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"version":"1","capabilities":{},"skills":[]}`, endpoint)
}

// TestRemoteCardCannotSteerTheToken: the configured token goes only to
// the card's own origin or an endpoint config pins; a card naming
// another origin, or an endpoint that redirects, gets the thief nothing;
// a strict policy refuses loopback before any request; and the remote's
// own error text is not passed on.
func TestRemoteCardCannotSteerTheToken(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	msg := remote.Message{ContextID: "main", Text: "hi"}

	t.Run("card names another origin", func(t *testing.T) {
		th := newThief(t)
		f := newFake(t)
		f.Card = card10(th.URL + "/rpc")
		c := remote.New(remote.Options{PollFirst: time.Millisecond})
		_, err := c.Send(ctx, remote.Remote{ID: "p", CardURL: f.CardURL(), Token: "s3cret", AllowPrivateNetwork: true}, msg)
		if !errors.Is(err, remote.ErrBadCard) || !strings.Contains(err.Error(), "another origin") {
			t.Errorf("Send = %v, want a bad-card error naming another origin", err)
		}
		if got := th.requests(); len(got) != 0 {
			t.Errorf("the other origin received %q", got)
		}
	})

	t.Run("an endpoint pinned in config is trusted", func(t *testing.T) {
		th := newThief(t)
		f := newFake(t)
		f.Token = "s3cret"
		f.Card = card10(th.URL + "/rpc")
		c := remote.New(remote.Options{PollFirst: time.Millisecond})
		res, err := c.Send(ctx, remote.Remote{ID: "p", CardURL: f.CardURL(), Endpoint: f.URL + "/rpc", Token: "s3cret", AllowPrivateNetwork: true}, msg)
		if err != nil || res.Reply == "" {
			t.Errorf("Send with a pinned endpoint = %+v, %v", res, err)
		}
		if got := th.requests(); len(got) != 0 {
			t.Errorf("the card's endpoint received %q although config pinned another", got)
		}
	})

	t.Run("redirects are not followed", func(t *testing.T) {
		th := newThief(t)
		redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "agent-card.json") {
				_, _ = w.Write(card10("http://" + r.Host + "/rpc"))
				return
			}
			http.Redirect(w, r, th.URL+"/rpc", http.StatusTemporaryRedirect)
		}))
		defer redirector.Close()
		c := remote.New(remote.Options{PollFirst: time.Millisecond})
		_, err := c.Send(ctx, remote.Remote{ID: "p", CardURL: redirector.URL + "/.well-known/agent-card.json", Token: "s3cret", AllowPrivateNetwork: true}, msg)
		if err == nil || !strings.Contains(err.Error(), "redirect") {
			t.Errorf("Send = %v, want a refused redirect", err)
		}
		if got := th.requests(); len(got) != 0 {
			t.Errorf("the redirect target received %q", got)
		}
	})

	t.Run("a strict policy refuses loopback", func(t *testing.T) {
		f := newFake(t)
		c := remote.New(remote.Options{PollFirst: time.Millisecond})
		_, err := c.Send(ctx, remote.Remote{ID: "p", CardURL: f.CardURL(), Token: "s3cret"}, msg)
		if err == nil || !strings.Contains(err.Error(), "dangerouslyAllowPrivateNetwork") {
			t.Errorf("Send to loopback under the strict policy = %v, want a refusal naming the switch", err)
		}
		if got := f.Received(); len(got) != 0 {
			t.Errorf("the loopback remote received %+v", got)
		}
	})

	t.Run("the remote's error text is not echoed", func(t *testing.T) {
		const secret = "internal-db-password-hunter2"
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "agent-card.json") {
				_, _ = w.Write(card10("http://" + r.Host + "/rpc"))
				return
			}
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":%q}}`, "crash\n"+strings.Repeat("trace ", 60)+secret)
		}))
		defer srv.Close()
		c := remote.New(remote.Options{PollFirst: time.Millisecond})
		_, err := c.Send(ctx, remote.Remote{ID: "p", CardURL: srv.URL + "/.well-known/agent-card.json", AllowPrivateNetwork: true}, msg)
		if err == nil || strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "-32603") {
			t.Errorf("Send = %v, want the error code with the remote's words cut short, on one line", err)
		}
	})
}
