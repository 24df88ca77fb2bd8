package remote_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/a2a/remote"
	"github.com/switchboard-go/switchboard/internal/a2a/remote/remotetest"
	"github.com/switchboard-go/switchboard/internal/a2a/wire"
)

func newFake(t *testing.T) *remotetest.Server {
	t.Helper()
	f := remotetest.New()
	t.Cleanup(f.Close)
	return f
}

func TestSendBothVersions(t *testing.T) {
	for _, legacy := range []bool{false, true} {
		for _, polls := range []int{0, 3} {
			for _, asMessage := range []bool{false, true} {
				f := newFake(t)
				f.Legacy = legacy
				f.Token = "s3cret"
				f.Answer = func(r remotetest.Received) remotetest.Answer {
					return remotetest.Answer{Reply: "got " + r.Text, Polls: polls, AsMessage: asMessage}
				}
				c := remote.New(remote.Options{PollFirst: time.Millisecond})
				r := remote.Remote{AllowPrivateNetwork: true, ID: "planner", CardURL: f.CardURL(), Token: "s3cret"}
				res, err := c.Send(context.Background(), r, remote.Message{ContextID: "main", Text: "hello", Chain: []string{"agent:main:main", "agent:planner:main"}})
				if err != nil {
					t.Fatalf("legacy=%v polls=%d message=%v: %v", legacy, polls, asMessage, err)
				}
				wantVersion := wire.Version
				if legacy {
					wantVersion = wire.LegacyVersion
				}
				if res.Reply != "got hello" || res.Version != wantVersion {
					t.Fatalf("legacy=%v: result = %+v", legacy, res)
				}
				got := f.Received()
				if len(got) != 1 || got[0].ContextID != "main" || got[0].Auth != "Bearer s3cret" {
					t.Fatalf("received = %+v", got)
				}
				if chain := remote.ChainOf(got[0].Metadata); !reflect.DeepEqual(chain, []string{"agent:main:main", "agent:planner:main"}) {
					t.Fatalf("chain over the wire = %v", chain)
				}
				if !legacy && got[0].Version != wire.Version {
					t.Fatalf("A2A-Version = %q, want %q", got[0].Version, wire.Version)
				}
			}
		}
	}
}

func TestSendErrorsNameTheRemote(t *testing.T) {
	closed := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		return "http://" + addr + wire.CardPath
	}()
	cases := []struct {
		name  string
		setup func(f *remotetest.Server) remote.Remote
		want  error
		text  string
	}{
		{"unreachable", func(f *remotetest.Server) remote.Remote {
			return remote.Remote{AllowPrivateNetwork: true, ID: "planner", CardURL: closed}
		}, remote.ErrUnreachable, "remote planner: unreachable"},
		{"401", func(f *remotetest.Server) remote.Remote {
			f.Token = "right"
			return remote.Remote{AllowPrivateNetwork: true, ID: "planner", CardURL: f.CardURL(), Token: "wrong"}
		}, remote.ErrUnauthorized, "401"},
		{"card not JSON", func(f *remotetest.Server) remote.Remote {
			f.Card = []byte(`<html>`)
			return remote.Remote{AllowPrivateNetwork: true, ID: "planner", CardURL: f.CardURL()}
		}, remote.ErrBadCard, "not JSON"},
		{"card without endpoint", func(f *remotetest.Server) remote.Remote {
			f.Card = []byte(`{"name":"x","supportedInterfaces":[{"url":"http://x/rpc","protocolBinding":"GRPC","protocolVersion":"1.0"}]}`)
			return remote.Remote{AllowPrivateNetwork: true, ID: "planner", CardURL: f.CardURL()}
		}, remote.ErrBadCard, "no JSON-RPC interface"},
		{"card 404", func(f *remotetest.Server) remote.Remote {
			return remote.Remote{AllowPrivateNetwork: true, ID: "planner", CardURL: f.URL + "/nope"}
		}, remote.ErrBadCard, "404"},
		{"task failed", func(f *remotetest.Server) remote.Remote {
			f.Answer = func(remotetest.Received) remotetest.Answer {
				return remotetest.Answer{State: wire.TaskStateFailed, Reply: "out of coffee", Polls: 1}
			}
			return remote.Remote{AllowPrivateNetwork: true, ID: "planner", CardURL: f.CardURL()}
		}, remote.ErrTaskFailed, "TASK_STATE_FAILED: out of coffee"},
		{"input required", func(f *remotetest.Server) remote.Remote {
			f.Answer = func(remotetest.Received) remotetest.Answer {
				return remotetest.Answer{State: wire.TaskStateInputRequired, Reply: "which one?"}
			}
			return remote.Remote{AllowPrivateNetwork: true, ID: "planner", CardURL: f.CardURL()}
		}, remote.ErrTaskFailed, "TASK_STATE_INPUT_REQUIRED"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			r := tc.setup(f)
			c := remote.New(remote.Options{PollFirst: time.Millisecond})
			_, err := c.Send(context.Background(), r, remote.Message{ContextID: "main", Text: "hi"})
			if !errors.Is(err, tc.want) || !strings.HasPrefix(err.Error(), "remote planner: ") || !strings.Contains(err.Error(), tc.text) {
				t.Fatalf("err = %v, want %v containing %q", err, tc.want, tc.text)
			}
		})
	}
}

func TestSendStopsAtTheDeadlineAndCancelsTheTask(t *testing.T) {
	f := newFake(t)
	f.Answer = func(remotetest.Received) remotetest.Answer { return remotetest.Answer{Reply: "late", Polls: 1 << 30} }
	c := remote.New(remote.Options{PollFirst: time.Millisecond, PollMax: 5 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Send(ctx, remote.Remote{AllowPrivateNetwork: true, ID: "planner", CardURL: f.CardURL()}, remote.Message{ContextID: "main", Text: "hi"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the deadline", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("Send returned after %v, long past its 100ms deadline", d)
	}
	if got := f.Cancels(); len(got) != 1 || got[0] != "task-1" {
		t.Fatalf("CancelTask calls = %v, want [task-1]", got)
	}
}

func TestCardIsCachedAndDroppedOnFailure(t *testing.T) {
	f := newFake(t)
	cardHits := 0
	inner := f.Config.Handler
	f.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == wire.CardPath {
			cardHits++
			if r.Header.Get(wire.VersionHeader) != wire.Version {
				t.Errorf("card fetched without %s: %s", wire.VersionHeader, wire.Version)
			}
		}
		inner.ServeHTTP(w, r)
	})
	c := remote.New(remote.Options{})
	r := remote.Remote{AllowPrivateNetwork: true, ID: "planner", CardURL: f.CardURL()}
	for range 3 {
		if _, err := c.Send(context.Background(), r, remote.Message{ContextID: "c", Text: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	if cardHits != 1 {
		t.Fatalf("card fetched %d times for 3 sends, want 1 (cached)", cardHits)
	}
	f.Token = "now-required"
	if _, err := c.Send(context.Background(), r, remote.Message{ContextID: "c", Text: "x"}); !errors.Is(err, remote.ErrUnauthorized) {
		t.Fatalf("err = %v", err)
	}
	f.Token = ""
	if _, err := c.Send(context.Background(), r, remote.Message{ContextID: "c", Text: "x"}); err != nil {
		t.Fatal(err)
	}
	if cardHits != 2 {
		t.Fatalf("card fetched %d times, want 2 (dropped after the failure)", cardHits)
	}
}

func TestChainOfAndContextID(t *testing.T) {
	if got := remote.ChainOf(map[string]any{remote.ChainKey: []any{"a", 3, " ", "b"}}); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Fatalf("ChainOf = %v", got)
	}
	if got := remote.ChainOf(map[string]any{remote.ChainKey: "a"}); got != nil {
		t.Fatalf("ChainOf(string) = %v", got)
	}
	for key, want := range map[string]string{"agent:planner:main": "main", "agent:planner:discord:group:7": "discord.group.7"} {
		if got := remote.ContextID(key); got != want {
			t.Errorf("ContextID(%q) = %q, want %q", key, got, want)
		}
	}
}
