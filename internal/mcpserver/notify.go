package mcpserver

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// watcher tells the clients of one SDK server (one principal) about the
// sessions that principal sees: notifications/resources/updated for the
// subscribed ones when a message lands, notifications/resources/list_changed
// when a session appears or goes.
type watcher struct {
	srv    *mcp.Server
	rs     resources
	events Events

	// live is set once a pump feeds the watcher; until then a
	// subscription would never be notified, so it is refused.
	live atomic.Bool

	mu   sync.Mutex
	subs map[string]map[string]bool // canonical key → subscribed URIs
}

func newWatcher(rs resources, events Events) *watcher {
	return &watcher{rs: rs, events: events, subs: map[string]map[string]bool{}}
}

// subscribe is the SDK's SubscribeHandler: a session the principal may not
// see is refused as unknown.
func (w *watcher) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	if !w.live.Load() {
		return rpcError(domain.Errorf(domain.CodeUnavailable, "resources/subscribe: this server has no event feed for this principal "+
			"(more principals are connected than it keeps servers for); read the resource instead"))
	}
	key, err := canonical(ctx, w.events, w.rs.p, req.Params.URI)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.subs[key] == nil {
		w.subs[key] = map[string]bool{}
	}
	w.subs[key][req.Params.URI] = true
	return nil
}

// unsubscribe is the SDK's UnsubscribeHandler.
func (w *watcher) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for key, uris := range w.subs {
		delete(uris, req.Params.URI)
		if len(uris) == 0 {
			delete(w.subs, key)
		}
	}
	return nil
}

func (w *watcher) subscribed(key string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]string, 0, len(w.subs[key]))
	for u := range w.subs[key] {
		out = append(out, u)
	}
	return out
}

// handle turns one engine event into notifications.
func (w *watcher) handle(ctx context.Context, ev domain.Event) {
	switch ev.Kind {
	case domain.EventMessage:
		for _, uri := range w.subscribed(ev.SessionKey) {
			_ = w.srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri})
		}
	case domain.EventSession:
		switch ev.Reason {
		case "created", "archived":
			// Only principals that may see the session hear of it.
			if _, err := w.rs.sessions.GetSession(ctx, w.rs.p, ev.SessionKey); err != nil {
				return
			}
		case "deleted":
			// A deleted session can no longer be checked; the notification
			// says only that the list changed, never which session.
		default:
			return
		}
		w.listChanged()
	}
}

// listChanged has the SDK send notifications/resources/list_changed to
// its clients (those that asked for it, on protocols that ask): the SDK
// sends it when a template is (re)registered, and re-registering the
// session template changes nothing else.
func (w *watcher) listChanged() {
	w.srv.AddResourceTemplate(sessionResourceTemplate(), w.rs.templateHandler)
}

// pump feeds engine events to watchers. It owns one goroutine, stopped by
// close.
type pump struct {
	log    *slog.Logger
	stop   func()
	cancel context.CancelFunc
	done   chan struct{}

	mu       sync.Mutex
	watchers map[*watcher]bool
}

func startPump(events Events, log *slog.Logger) *pump {
	ch, stop := events.Subscribe(1024)
	ctx, cancel := context.WithCancel(context.Background())
	p := &pump{log: log, stop: stop, cancel: cancel, done: make(chan struct{}), watchers: map[*watcher]bool{}}
	go p.run(ctx, ch)
	return p
}

func (p *pump) run(ctx context.Context, ch <-chan domain.Event) {
	defer close(p.done)
	for ev := range ch {
		if ev.Kind != domain.EventMessage && ev.Kind != domain.EventSession {
			continue
		}
		p.mu.Lock()
		ws := make([]*watcher, 0, len(p.watchers))
		for w := range p.watchers {
			ws = append(ws, w)
		}
		p.mu.Unlock()
		for _, w := range ws {
			w.handle(ctx, ev)
		}
	}
}

func (p *pump) add(w *watcher) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.watchers[w] = true
	w.live.Store(true)
}

// close ends the subscription and waits for the goroutine.
func (p *pump) close() {
	p.cancel()
	p.stop()
	<-p.done
}
