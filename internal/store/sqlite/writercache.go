package sqlite

// The writer remembers, per session key, the newest stored message (its
// seq, id and generation), so an append does not look it up with an index
// read first. Only the writer goroutine writes messages, so the cache
// stays true as long as it forgets what a rollback undid:
//
//   - a fn that fails (its savepoint, or its lone transaction, is rolled
//     back) forgets the keys it touched;
//   - a batch that fails as a whole forgets everything;
//   - before each batch, PRAGMA data_version tells whether another
//     connection (another process) committed since; then it forgets
//     everything too.
//
// The cache is bounded; past maxCachedKeys it drops entries at random.

// maxCachedKeys bounds the writer's message cache (about 100 bytes each).
const maxCachedKeys = 20_000

// lastMessage is the newest message of a key; seq 0 means the key has none.
type lastMessage struct {
	seq int64
	id  string
	sid string
}

// writerCache is owned by the writer goroutine.
type writerCache struct {
	last map[string]lastMessage
	// dataVersion is PRAGMA data_version of the write connection as of the
	// last batch; -1 before the first.
	dataVersion int64
}

func newWriterCache() writerCache {
	return writerCache{last: make(map[string]lastMessage), dataVersion: -1}
}

func (c *writerCache) put(key string, m lastMessage) {
	if _, ok := c.last[key]; !ok && len(c.last) >= maxCachedKeys {
		n := 0
		for k := range c.last { // map order is random enough for eviction
			delete(c.last, k)
			if n++; n >= maxCachedKeys/4 {
				break
			}
		}
	}
	c.last[key] = m
}

func (c *writerCache) forget(keys []string) {
	for _, k := range keys {
		delete(c.last, k)
	}
}

func (c *writerCache) reset() { clear(c.last) }
