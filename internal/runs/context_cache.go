package runs

import (
	"math"
	"math/rand/v2"
	"sync"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// contextCache keeps the recent transcript of sessions that ran lately, so
// a run does not decode its whole context from the store again. It is
// safe because every message of a session's current transcript is
// appended by that session's lane, one run at a time; an entry is keyed by
// sessionId too, so a reset (new sessionId) misses. Bounded by the
// estimated memory of the messages it holds (messageCost), not their
// count: a count sized for long model replies held a tenth of the short
// messages that fit in the same memory.
//
// When full it evicts an entry at random, not the least recently used:
// many sessions taking turns in a cycle longer than the cache holds (a
// thousand chat sessions of a hundred messages each, as `bench chat` or a
// busy team drives them) made LRU evict exactly the session that ran
// next, so every turn missed and read its context from the store (two
// fifths of a turn's CPU). Random eviction keeps about the share of them
// that fits, and a session that turns often is put back after each run.
type contextCache struct {
	mu      sync.Mutex
	max     int // bytes, estimated by messageCost
	total   int // bytes held
	entries []*cacheEntry
	byKey   map[string]int // index in entries
	rng     *rand.Rand
	// stale holds sessions whose transcript got a message from outside
	// their lane while a run held the context (Inject): that run's put is
	// refused once, so the next run reads the store.
	stale map[string]bool
	// lent holds the sizes of the contexts runs have taken, so the put
	// that hands one back, grown by the run's messages, sizes only those
	// (sizing every message of every context on each put would cost
	// every turn in proportion to its context). It keeps ids, not the messages.
	lent map[string]lentSizes
}

type cacheEntry struct {
	key, sessionID string
	msgs           []domain.Message
	costs          []int32 // messageCost of each of msgs
	cost           int
}

// lentSizes is what a take remembers of a context: its sessionId, the
// ids of its first and last messages and each message's cost.
type lentSizes struct {
	sessionID, firstID, lastID string
	costs                      []int32
}

// newContextCache holds messages of an estimated maxBytes in all.
func newContextCache(maxBytes int) *contextCache {
	return &contextCache{max: maxBytes, byKey: map[string]int{}, lent: map[string]lentSizes{}, rng: rand.New(rand.NewPCG(1, 2))}
}

// messageCost estimates the memory a decoded message holds: its struct,
// its blocks and the bytes of their strings. An estimate is enough: it
// bounds the cache, it is not an account.
func messageCost(m *domain.Message) int {
	const msgOverhead, blockOverhead = 400, 200
	n := msgOverhead + len(m.Details) + len(m.ErrorMessage) + len(m.Model) + len(m.ToolName)
	for _, b := range m.Content.Blocks() {
		n += blockOverhead + len(b.Text) + len(b.TextSignature) + len(b.Thinking) + len(b.ThinkingSignature) +
			len(b.Arguments) + len(b.Data) + len(b.Name) + len(b.ID)
	}
	return n
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
	i, ok := c.byKey[key]
	if !ok {
		return nil, false
	}
	e := c.entries[i]
	c.removeLocked(i)
	if e.sessionID != sessionID {
		return nil, false
	}
	if n := len(e.msgs); n > 0 && e.msgs[0].ID != "" && e.msgs[n-1].ID != "" {
		c.lent[key] = lentSizes{sessionID: sessionID, firstID: e.msgs[0].ID, lastID: e.msgs[n-1].ID, costs: e.costs}
	}
	return e.msgs, true
}

// sizes returns the cost of each of msgs: those of the context key lent
// out when msgs starts with it (same first and last ids at its length),
// estimated for the rest.
func (c *contextCache) sizes(key, sessionID string, msgs []domain.Message) []int32 {
	c.mu.Lock()
	l, ok := c.lent[key]
	delete(c.lent, key)
	c.mu.Unlock()
	n := len(l.costs)
	if !ok || l.sessionID != sessionID || n == 0 || len(msgs) < n || msgs[0].ID != l.firstID || msgs[n-1].ID != l.lastID {
		n = 0
	}
	costs := make([]int32, n, len(msgs))
	copy(costs, l.costs)
	for i := n; i < len(msgs); i++ {
		costs = append(costs, int32(min(messageCost(&msgs[i]), math.MaxInt32)))
	}
	return costs
}

// put stores the newest limit messages of msgs as the context of key and
// takes msgs over: the caller must not change them afterwards (appending
// to msgs is fine: it never changes the elements already there).
func (c *contextCache) put(key, sessionID string, msgs []domain.Message, limit int) {
	if c == nil {
		return
	}
	// Sized outside the lock: every run's end puts up to a context of
	// messages, and the lock is shared by all sessions.
	costs := c.sizes(key, sessionID, msgs)
	if len(msgs) > limit {
		msgs = msgs[len(msgs)-limit:]
		costs = costs[len(costs)-limit:]
	}
	cost := 0
	for _, n := range costs {
		cost += int(n)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if i, ok := c.byKey[key]; ok {
		c.removeLocked(i)
	}
	if c.stale[key] {
		delete(c.stale, key)
		return
	}
	if cost > c.max {
		return
	}
	c.entries = append(c.entries, &cacheEntry{key: key, sessionID: sessionID, msgs: msgs, costs: costs, cost: cost})
	c.byKey[key] = len(c.entries) - 1
	c.total += cost
	for c.total > c.max {
		// Never the entry just put: it fits on its own. A removal moves
		// the last entry into the hole, so it may no longer be last.
		i := c.rng.IntN(len(c.entries) - 1)
		if c.entries[i].key == key {
			i = len(c.entries) - 1
		}
		c.removeLocked(i)
	}
}

// drop forgets key (after a failed write, its cached context may be stale).
func (c *contextCache) drop(key string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.lent, key)
	if i, ok := c.byKey[key]; ok {
		c.removeLocked(i)
	}
}

// removeLocked removes entries[i], moving the last entry into its place.
func (c *contextCache) removeLocked(i int) {
	e := c.entries[i]
	last := len(c.entries) - 1
	c.entries[i] = c.entries[last]
	c.byKey[c.entries[i].key] = i
	c.entries[last] = nil
	c.entries = c.entries[:last]
	delete(c.byKey, e.key)
	c.total -= e.cost
}

// markStale forgets key and refuses the next put of it: a run holding the
// context in memory lacks a message written outside its lane.
func (c *contextCache) markStale(key string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.lent, key)
	if i, ok := c.byKey[key]; ok {
		c.removeLocked(i)
	}
	if c.stale == nil {
		c.stale = map[string]bool{}
	}
	c.stale[key] = true
}
