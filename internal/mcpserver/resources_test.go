package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// transports connects a client to s as p over stdio or over HTTP (with a
// token resolving to p), with the client options given.
var transports = []struct {
	name    string
	connect func(t *testing.T, s *Server, p api.Principal, opts *mcp.ClientOptions) *mcp.ClientSession
}{
	{"stdio", func(t *testing.T, s *Server, p api.Principal, opts *mcp.ClientOptions) *mcp.ClientSession {
		return connectStdioWith(t, s, p, opts, nil)
	}},
	{"http", func(t *testing.T, s *Server, p api.Principal, opts *mcp.ClientOptions) *mcp.ClientSession {
		ts := serveHTTP(t, s, map[string]api.Principal{"tok": p})
		return connectHTTPWith(t, ts.URL+"/mcp", "tok", opts, nil)
	}},
}

func TestResourcesListPagesThroughTheCallersSessions(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			e := newEngine(t, "all")
			for _, k := range []string{"main", "agent:main:a", "agent:main:b", "agent:main:c", "agent:main:d"} {
				chat(t, e, k, "hi "+k)
			}
			s := New(e, Options{})
			s.page = 2
			cs := tr.connect(t, s, operatorAs(""), nil)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			seen := map[string]bool{}
			pages := 0
			cursor := ""
			for {
				res, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
				if err != nil {
					t.Fatal(err)
				}
				pages++
				if len(res.Resources) > 2 {
					t.Fatalf("page %d has %d resources, want at most 2", pages, len(res.Resources))
				}
				for _, r := range res.Resources {
					if seen[r.URI] {
						t.Errorf("%s listed twice", r.URI)
					}
					seen[r.URI] = true
					if r.MIMEType != "text/markdown" || !strings.HasPrefix(r.URI, "switchboard://session/") {
						t.Errorf("resource %+v", r)
					}
				}
				if cursor = res.NextCursor; cursor == "" {
					break
				}
			}
			if len(seen) != 5 || pages != 3 {
				t.Fatalf("listed %d sessions in %d pages, want 5 in 3: %v", len(seen), pages, seen)
			}
			if !seen["switchboard://session/agent:main:b"] {
				t.Errorf("agent:main:b is not listed: %v", seen)
			}
			tmpls, err := cs.ListResourceTemplates(ctx, nil)
			if err != nil || len(tmpls.ResourceTemplates) != 1 || tmpls.ResourceTemplates[0].URITemplate != sessionTemplate {
				t.Fatalf("templates = %+v, %v", tmpls, err)
			}
			_, err = cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: "bogus"})
			if code, data := rpcCode(err); code != jsonrpc.CodeInvalidParams || !strings.Contains(data, `"code":"invalid"`) {
				t.Fatalf("a bad cursor: %v", err)
			}
		})
	}
}

func TestResourceReadIsSessionsHistory(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			e := newEngine(t, "tree")
			chat(t, e, "agent:main:alice", "hello resources")
			chat(t, e, "main", "secret of main")
			alice := boundTo("alice", "agent:main:alice")
			cs := tr.connect(t, New(e, Options{}), alice, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()

			list, err := cs.ListResources(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(list.Resources) != 1 || list.Resources[0].URI != "switchboard://session/agent:main:alice" {
				t.Fatalf("a bound token lists %+v, want only its session", list.Resources)
			}
			md, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: list.Resources[0].URI})
			if err != nil {
				t.Fatal(err)
			}
			if len(md.Contents) != 1 || md.Contents[0].MIMEType != "text/markdown" ||
				!strings.Contains(md.Contents[0].Text, "hello resources") || !strings.Contains(md.Contents[0].Text, "echo: hello resources") {
				t.Fatalf("markdown read = %+v", md.Contents)
			}
			js, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: list.Resources[0].URI + "?format=json"})
			if err != nil {
				t.Fatal(err)
			}
			want, err := e.History(ctx, alice, api.HistoryRequest{SessionKey: "agent:main:alice"})
			if err != nil {
				t.Fatal(err)
			}
			wantJSON, _ := json.Marshal(want)
			if js.Contents[0].MIMEType != "application/json" || js.Contents[0].Text != string(wantJSON) {
				t.Fatalf("json read = %s\nwant sessions_history's %s", js.Contents[0].Text, wantJSON)
			}

			// Another session is unknown to a bound token, exactly like a
			// session that does not exist.
			for _, uri := range []string{"switchboard://session/agent:main:main", "switchboard://session/agent:main:nobody"} {
				_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
				ref, _ := parseSessionURI(uri)
				_, herr := e.History(ctx, alice, api.HistoryRequest{SessionKey: ref.Key})
				want := `"code":"` + domain.ErrorCode(herr) + `"`
				if code, data := rpcCode(err); herr == nil || code != mcp.CodeResourceNotFound || !strings.Contains(data, want) {
					t.Errorf("read %s = %v, want resource not found with sessions_history's %s", uri, err, want)
				}
				if err != nil && strings.Contains(err.Error(), "secret") {
					t.Errorf("the refusal shows the transcript: %v", err)
				}
			}
			_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "switchboard://session/x?format=xml"})
			if code, _ := rpcCode(err); code != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), "format") {
				t.Errorf("a bad format = %v", err)
			}
		})
	}
}

func TestResourceSubscriptionsNotify(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			e := newEngine(t, "tree")
			chat(t, e, "agent:main:alice", "first")
			updated := make(chan string, 16)
			listChanged := make(chan struct{}, 16)
			opts := &mcp.ClientOptions{
				ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
					updated <- r.Params.URI
				},
				ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {
					listChanged <- struct{}{}
				},
			}
			cs := tr.connect(t, New(e, Options{}), boundTo("alice", "agent:main:alice"), opts)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			uri := sessionURI("agent:main:alice")
			if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
				t.Fatal(err)
			}
			chat(t, e, "agent:main:bob", "hidden")

			// On protocol 2026-07-28 the SDK client's Subscribe returns once
			// its subscriptions/listen is sent, not once the server holds it:
			// a message may land before; the next one is then notified.
			got := ""
			for got == "" {
				chat(t, e, "agent:main:alice", "another")
				select {
				case got = <-updated:
				case <-time.After(2 * time.Second):
				case <-ctx.Done():
					t.Fatal("no notifications/resources/updated after messages landed")
				}
			}
			if got != uri {
				t.Fatalf("updated %s, want %s", got, uri)
			}

			// A sub-agent is a new session alice sees: the list changed.
			drain(listChanged)
			if _, err := e.Spawn(ctx, operatorAs("agent:main:alice"), api.SpawnRequest{Task: "count"}); err != nil {
				t.Fatal(err)
			}
			select {
			case <-listChanged:
			case <-ctx.Done():
				t.Fatal("no notifications/resources/list_changed after a session appeared")
			}
		})
	}
}

func TestResourceSubscribeRefusals(t *testing.T) {
	// The legacy protocol's resources/subscribe: over stdio a session the
	// requester may not see is refused as unknown; over stateless HTTP the
	// method itself is refused with what to use instead.
	e := newEngine(t, "tree")
	chat(t, e, "agent:main:alice", "first")
	chat(t, e, "agent:main:bob", "hidden")
	alice := boundTo("alice", "agent:main:alice")
	legacy := &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	st := connectStdioWith(t, New(e, Options{}), alice, nil, legacy)
	if err := st.Subscribe(ctx, &mcp.SubscribeParams{URI: sessionURI("agent:main:alice")}); err != nil {
		t.Fatalf("stdio: subscribe to its own session: %v", err)
	}
	err := st.Subscribe(ctx, &mcp.SubscribeParams{URI: sessionURI("agent:main:bob")})
	if code, data := rpcCode(err); code != mcp.CodeResourceNotFound || !strings.Contains(data, `"code":"not_found"`) {
		t.Fatalf("stdio: subscribe to an invisible session = %v", err)
	}

	ts := serveHTTP(t, New(e, Options{}), map[string]api.Principal{"tok": alice})
	hc := connectHTTPWith(t, ts.URL+"/mcp", "tok", nil, legacy)
	err = hc.Subscribe(ctx, &mcp.SubscribeParams{URI: sessionURI("agent:main:alice")})
	if code, _ := rpcCode(err); code != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), "subscriptions/listen") {
		t.Fatalf("http: legacy subscribe = %v", err)
	}
}

func drain(ch chan struct{}) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

// rpcCode is the JSON-RPC error code and data of a client call's error.
func rpcCode(err error) (int64, string) {
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		return we.Code, string(we.Data)
	}
	return 0, ""
}

// connectStdioWith is connectStdio with client options.
func connectStdioWith(tb testing.TB, s *Server, p api.Principal, opts *mcp.ClientOptions, so *mcp.ClientSessionOptions) *mcp.ClientSession {
	tb.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		err := s.RunStdio(ctx, p, inR, outW)
		outW.Close()
		done <- err
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts).Connect(context.Background(), &mcp.IOTransport{Reader: outR, Writer: inW}, so)
	if err != nil {
		cancel()
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		defer cancel()
		cs.Close()
		select {
		case err := <-done:
			if err != nil {
				tb.Errorf("RunStdio returned %v", err)
			}
		case <-time.After(10 * time.Second):
			tb.Errorf("RunStdio did not return after the client closed")
		}
	})
	return cs
}

// connectHTTPWith is connectHTTP with client options.
func connectHTTPWith(tb testing.TB, url, token string, opts *mcp.ClientOptions, so *mcp.ClientSessionOptions) *mcp.ClientSession {
	tb.Helper()
	tr := &http.Transport{}
	tb.Cleanup(tr.CloseIdleConnections)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts).Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint:             url,
		HTTPClient:           &http.Client{Transport: bearer{token, tr}},
		DisableStandaloneSSE: true,
		MaxRetries:           -1,
	}, so)
	if err != nil {
		tb.Fatalf("connect %s: %v", url, err)
	}
	tb.Cleanup(func() { cs.Close() })
	return cs
}

func TestSubscribeWithoutEventFeedRefused(t *testing.T) {
	// A server no pump feeds (an HTTP principal past the server cache)
	// would never notify: its subscription is refused, saying why.
	w := newWatcher(resources{}, nil)
	err := w.subscribe(context.Background(), &mcp.SubscribeRequest{Params: &mcp.SubscribeParams{URI: sessionURI("main")}})
	if code, data := rpcCode(err); code == 0 || !strings.Contains(data, `"code":"unavailable"`) || !strings.Contains(err.Error(), "no event feed") {
		t.Fatalf("subscribe without a feed = %v", err)
	}
}
