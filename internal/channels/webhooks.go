package channels

import (
	"context"
	"io"
	"net/http"
	"sync"
)

// MaxDeliveryBytes bounds one webhook delivery's body.
const MaxDeliveryBytes = 4 << 20

// Webhooks are the webhook listeners of a provider's accounts: accounts
// that name the same address share one listener, and those that name the
// same path on it share one handler, which tells them apart by the
// delivery's credentials.
type Webhooks[T any] struct {
	mu sync.Mutex
	ls []*hookListener[T]
}

type hookListener[T any] struct {
	addr  string
	srv   *http.Server
	bound string
	paths map[string]*hookPath[T]
}

type hookPath[T any] struct {
	accts    []T
	ids      []string
	counters []*Counters
}

// Add puts an account's webhook at addr and path.
func (w *Webhooks[T]) Add(addr, path, accountID string, c *Counters, x T) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var l *hookListener[T]
	for _, have := range w.ls {
		if have.addr == addr {
			l = have
		}
	}
	if l == nil {
		l = &hookListener[T]{addr: addr, paths: map[string]*hookPath[T]{}}
		w.ls = append(w.ls, l)
	}
	hp := l.paths[path]
	if hp == nil {
		hp = &hookPath[T]{}
		l.paths[path] = hp
	}
	hp.accts, hp.ids, hp.counters = append(hp.accts, x), append(hp.ids, accountID), append(hp.counters, c)
}

// Serve starts every listener with handler's answer for each path's
// accounts; the listeners' goroutines join p's run. A listener that
// cannot listen sets its accounts' error; the others serve, and their
// accounts run.
func (w *Webhooks[T]) Serve(p *Provider, handler func(accts []T) http.Handler) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, l := range w.ls {
		mux := http.NewServeMux()
		for path, hp := range l.paths {
			mux.Handle(path, handler(hp.accts))
		}
		srv, bound, err := Listen(l.addr, mux, p.Wait(), p.Log)
		if err != nil {
			l.each(func(c *Counters) { c.SetError(err) })
			p.Log.Error(p.Name+" webhook not started", "addr", l.addr, "err", err)
			continue
		}
		l.srv, l.bound = srv, bound.String()
		l.each(func(c *Counters) { c.SetRunning(true) })
		p.Log.Info(p.Name+" webhook listening", "addr", l.bound)
	}
}

func (l *hookListener[T]) each(f func(*Counters)) {
	for _, hp := range l.paths {
		for _, c := range hp.counters {
			f(c)
		}
	}
}

// URL is the local URL an account's webhook listens at (after Serve), ""
// when it does not listen.
func (w *Webhooks[T]) URL(accountID string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, l := range w.ls {
		for path, hp := range l.paths {
			for _, id := range hp.ids {
				if id == accountID && l.bound != "" {
					return "http://" + l.bound + path
				}
			}
		}
	}
	return ""
}

// Shutdown closes the listeners, up to ctx's end.
func (w *Webhooks[T]) Shutdown(ctx context.Context) {
	w.mu.Lock()
	ls := w.ls
	w.mu.Unlock()
	for _, l := range ls {
		if l.srv != nil {
			_ = l.srv.Shutdown(ctx)
		}
	}
}

// ReadDelivery reads a webhook delivery's body up to MaxDeliveryBytes;
// a larger or unreadable one is answered 413 and ok is false.
func ReadDelivery(w http.ResponseWriter, r *http.Request) (body []byte, ok bool) {
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxDeliveryBytes+1))
	if err != nil || len(body) > MaxDeliveryBytes {
		http.Error(w, "body too large or unreadable", http.StatusRequestEntityTooLarge)
		return nil, false
	}
	return body, true
}
