package a2a

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/a2a/remote"
	"github.com/switchboard-go/switchboard/internal/a2a/wire"
	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// methodLog records the JSON-RPC methods a server was called with.
type methodLog struct {
	mu      sync.Mutex
	methods []string
}

func (l *methodLog) add(m string) {
	l.mu.Lock()
	l.methods = append(l.methods, m)
	l.mu.Unlock()
}

func (l *methodLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.methods
	l.methods = nil
	return out
}

// TestRemoteClientStreamsAndCancels: against this server, the client
// streams when the card offers it (1.0 SendStreamingMessage, 0.3
// message/stream) and polls when it does not; a caller that stops
// waiting cancels the remote task either way.
func TestRemoteClientStreamsAndCancels(t *testing.T) {
	h := newHarness(t)
	const token = "client-token"
	log := &methodLog{}
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/legacy-stream.json", "/legacy-poll.json":
			w.Header().Set("Content-Type", "application/json")
			caps := `{}`
			if r.URL.Path == "/legacy-stream.json" {
				caps = `{"streaming":true}`
			}
			fmt.Fprintf(w, `{"name":"main","description":"d","url":%q,"protocolVersion":"0.3.0","preferredTransport":"JSONRPC","version":"1","capabilities":%s,"defaultInputModes":[],"defaultOutputModes":[],"skills":[]}`,
				srv.URL+AgentsPrefix+"main", caps)
			return
		}
		if r.Method == http.MethodPost {
			b, _ := io.ReadAll(r.Body)
			var req wire.Request
			_ = json.Unmarshal(b, &req)
			log.add(req.Method)
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
		if r.Header.Get("Authorization") == "Bearer "+token {
			r.Header.Set("X-Test-Principal", "operator")
		}
		h.a2a.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	c := remote.New(remote.Options{})
	cards := []struct {
		name, card, send string
	}{
		{"1.0 streaming", srv.URL + AgentsPrefix + "main" + wire.CardPath, wire.MethodSendStreamingMessage},
		{"0.3 streaming", srv.URL + "/legacy-stream.json", wire.LegacyMethodStreamMessage},
		{"0.3 polling", srv.URL + "/legacy-poll.json", wire.LegacyMethodSendMessage},
	}
	for i, tc := range cards {
		r := remote.Remote{AllowPrivateNetwork: true, ID: "peer", CardURL: tc.card, Token: token}
		// A reply streamed in pieces arrives whole.
		res, err := c.Send(context.Background(), r, remote.Message{ContextID: fmt.Sprintf("stream-%d", i), Text: "chunk it"})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if res.Reply != chunkedReply || res.TaskID == "" {
			t.Errorf("%s: result = %+v", tc.name, res)
		}
		if m := log.take(); len(m) == 0 || m[0] != tc.send {
			t.Errorf("%s: methods called = %v, want %s first", tc.name, m, tc.send)
		}

		// A slow task: the caller stops waiting once it runs.
		events, stop := h.eng.Subscribe(64)
		ctx, cancel := context.WithCancel(context.Background())
		started := make(chan string, 1)
		go func() {
			defer stop()
			for ev := range events {
				if ev.Kind == domain.EventRunStart && ev.Run != nil && ev.Run.Message == "slow "+tc.name {
					started <- ev.Run.ID
					cancel()
					return
				}
			}
		}()
		_, err = c.Send(ctx, r, remote.Message{ContextID: fmt.Sprintf("slow-%d", i), Text: "slow " + tc.name})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: slow send = %v, want cancelled", tc.name, err)
		}
		var runID string
		select {
		case runID = <-started:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the remote task never started", tc.name)
		}
		run, err := h.eng.WaitRun(context.Background(), principals["operator"], api.WaitRequest{RunID: runID, Timeout: 10 * time.Second})
		if err != nil || run.Status != domain.RunCancelled {
			t.Errorf("%s: remote task = %s, %v; want cancelled", tc.name, run.Status, err)
		}
		methods := log.take()
		cancelled := false
		for _, m := range methods {
			cancelled = cancelled || m == wire.MethodCancelTask || m == wire.LegacyMethodCancelTask
		}
		if !cancelled {
			t.Errorf("%s: methods called = %v, want a cancel", tc.name, methods)
		}
	}
}
