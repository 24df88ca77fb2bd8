package runtime

import (
	"container/list"
	"sync"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// contextCache keeps the recent transcript of sessions that ran lately, so
// a run does not decode its whole context from the store again. It is
// safe because every message of a session's current transcript is
// appended by that session's lane, one run at a time; an entry is keyed by
// sessionId too, so a reset (new sessionId) misses. Bounded by a total
// message count, least recently used first out.
type contextCache struct {
	mu    sync.Mutex
	max   int
	total int
	order *list.List // of *cacheEntry, most recent at front
	byKey map[string]*list.Element
	// stale holds sessions whose transcript got a message from outside
	// their lane while a run held the context (Inject): that run's put is
	// refused once, so the next run reads the store.
	stale map[string]bool
}

type cacheEntry struct {
	key, sessionID string
	msgs           []domain.Message
}

func newContextCache(maxMessages int) *contextCache {
	return &contextCache{max: maxMessages, order: list.New(), byKey: map[string]*list.Element{}}
}

// take hands over the cached context of (key, sessionID) and forgets it,
// or reports ok=false. The caller owns the slice: only the session's lane
// uses its context, one run at a time, and that run puts it back (or
// drops it) when it ends. No copy is made either way: a context is up to
// ContextMessages messages, and copying it twice per turn was most of
// what a turn allocated.
func (c *contextCache) take(key, sessionID string) ([]domain.Message, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[key]
	if !ok {
		return nil, false
	}
	e := el.Value.(*cacheEntry)
	c.removeLocked(el)
	if e.sessionID != sessionID {
		return nil, false
	}
	return e.msgs, true
}

// put stores the newest limit messages of msgs as the context of key and
// takes msgs over: the caller must not change them afterwards (appending
// to msgs is fine: it never changes the elements already there).
func (c *contextCache) put(key, sessionID string, msgs []domain.Message, limit int) {
	if c == nil {
		return
	}
	if len(msgs) > limit {
		msgs = msgs[len(msgs)-limit:]
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[key]; ok {
		c.removeLocked(el)
	}
	if c.stale[key] {
		delete(c.stale, key)
		return
	}
	if len(msgs) > c.max {
		return
	}
	c.byKey[key] = c.order.PushFront(&cacheEntry{key: key, sessionID: sessionID, msgs: msgs})
	c.total += len(msgs)
	for c.total > c.max {
		c.removeLocked(c.order.Back())
	}
}

// drop forgets key (after a failed write, its cached context may be stale).
func (c *contextCache) drop(key string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[key]; ok {
		c.removeLocked(el)
	}
}

func (c *contextCache) removeLocked(el *list.Element) {
	e := c.order.Remove(el).(*cacheEntry)
	delete(c.byKey, e.key)
	c.total -= len(e.msgs)
}

// markStale forgets key and refuses the next put of it: a run holding the
// context in memory lacks a message written outside its lane.
func (c *contextCache) markStale(key string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[key]; ok {
		c.removeLocked(el)
	}
	if c.stale == nil {
		c.stale = map[string]bool{}
	}
	c.stale[key] = true
}
