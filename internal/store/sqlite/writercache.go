package sqlite

import (
	"bytes"

	"github.com/switchboard-go/switchboard/internal/domain"
)

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
//
// It also remembers session rows the writer read or wrote (decoded, with
// their column values), so the reads of a row that every run's claim and
// end make (GetSession, then PutSession's comparison) neither query nor
// decode it again. The same rules keep it true: only the writer writes
// session rows, PutSession and DeleteSession update or forget the entry,
// and a rolled-back fn forgets the keys it touched.

// It also remembers session_accounts rows the writer wrote (AddUsage,
// PutAccount), so the charge at every run's end is a plain UPDATE of the
// row by its key instead of an upsert that reads the row back (RETURNING).
// The same rules keep it true: only the writer writes accounts,
// DeleteSession forgets the key, and a rolled-back fn forgets the keys it
// touched.

// maxCachedKeys bounds the writer's message cache (about 100 bytes each).
const maxCachedKeys = 20_000

// lastMessage is the newest message of a key; seq 0 means the key has none.
type lastMessage struct {
	seq int64
	id  string
	sid string
	gen int64 // sid's generation number (0 when seq is 0)
}

// maxCachedSessions bounds the writer's session rows (a few hundred bytes
// to a few KB each).
const maxCachedSessions = 4096

// cachedSession is a session row as stored: decoded, and its column values
// (sessionArgs).
type cachedSession struct {
	sess domain.Session
	args []any
}

// maxCachedRuns bounds the writer's run rows. A run is read and written
// back a few times while it runs (claim, end); older runs fall out.
const maxCachedRuns = 4096

// maxCachedRunBytes bounds the writer's run rows by size as well: a run
// holds its message, reply and spec (twice: decoded and as a column
// value), large for maximal messages, so the count alone would let a
// caller pin memory without bound. A run larger than the whole budget is not cached.
const maxCachedRunBytes = 64 << 20

// cachedRun is a run row as stored, with its column values (runArgs) and
// its estimated size (runCost).
type cachedRun struct {
	run  domain.Run
	args []any
	cost int
}

// runCost estimates the bytes a cached run holds: its texts, its spec
// and the spec's column value, plus the fixed fields.
func runCost(r domain.Run) int {
	const fixed = 512
	return fixed + len(r.Message) + len(r.Reply) + len(r.Error) + 2*len(r.Spec)
}

// writerCache is owned by the writer goroutine.
type writerCache struct {
	last     map[string]lastMessage
	sessions map[string]cachedSession
	// runs is keyed by run id; a rolled-back fn forgets the runs it
	// touched (tx.touchedRuns), as with sessions.
	runs map[string]cachedRun
	// runBytes is the sum of the costs in runs (maxCachedRunBytes).
	runBytes int
	// accounts is keyed by session key (the rows of session_accounts).
	accounts map[string]domain.Account
	// dataVersion is PRAGMA data_version of the write connection as of the
	// last batch; -1 before the first.
	dataVersion int64
}

func newWriterCache() writerCache {
	return writerCache{last: make(map[string]lastMessage), sessions: make(map[string]cachedSession),
		runs: make(map[string]cachedRun), accounts: make(map[string]domain.Account), dataVersion: -1}
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

// session returns a copy of the cached row of key.
func (c *writerCache) session(key string) (domain.Session, []any, bool) {
	e, ok := c.sessions[key]
	if !ok {
		return domain.Session{}, nil, false
	}
	return cloneSession(e.sess), e.args, true
}

// putSession remembers the row of key as stored; s is copied.
func (c *writerCache) putSession(key string, s domain.Session, args []any) {
	if _, ok := c.sessions[key]; !ok && len(c.sessions) >= maxCachedSessions {
		n := 0
		for k := range c.sessions {
			delete(c.sessions, k)
			if n++; n >= maxCachedSessions/4 {
				break
			}
		}
	}
	c.sessions[key] = cachedSession{sess: cloneSession(s), args: args}
}

// cloneSession copies s and what its pointers hold, so a caller that
// changes the copy in place leaves the cached row alone.
func cloneSession(s domain.Session) domain.Session {
	if s.Origin != nil {
		o := *s.Origin
		s.Origin = &o
	}
	if s.Delivery != nil {
		d := *s.Delivery
		s.Delivery = &d
	}
	return s
}

// run returns a copy of the cached row of run id.
func (c *writerCache) run(id string) (domain.Run, []any, bool) {
	e, ok := c.runs[id]
	if !ok {
		return domain.Run{}, nil, false
	}
	return cloneRun(e.run), e.args, true
}

// putRun remembers the row of r as stored; r is copied.
func (c *writerCache) putRun(r domain.Run, args []any) {
	c.dropRun(r.ID)
	cost := runCost(r)
	if cost > maxCachedRunBytes {
		return
	}
	if len(c.runs) >= maxCachedRuns || c.runBytes+cost > maxCachedRunBytes {
		n := 0
		for k := range c.runs { // map order is random enough for eviction
			c.dropRun(k)
			if n++; n >= maxCachedRuns/4 && c.runBytes+cost <= maxCachedRunBytes {
				break
			}
		}
	}
	c.runs[r.ID] = cachedRun{run: cloneRun(r), args: args, cost: cost}
	c.runBytes += cost
}

// dropRun forgets run id, keeping runBytes true.
func (c *writerCache) dropRun(id string) {
	if e, ok := c.runs[id]; ok {
		c.runBytes -= e.cost
		delete(c.runs, id)
	}
}

// cloneRun copies r and what its slices and pointers hold.
func cloneRun(r domain.Run) domain.Run {
	r.Spec = bytes.Clone(r.Spec)
	if r.Usage.Cost != nil {
		cost := *r.Usage.Cost
		r.Usage.Cost = &cost
	}
	return r
}

// maxCachedAccounts bounds the writer's account rows (~150 bytes each).
const maxCachedAccounts = 4096

// account returns the cached account row of key.
func (c *writerCache) account(key string) (domain.Account, bool) {
	a, ok := c.accounts[key]
	return a, ok
}

// putAccount remembers the account row of a.SessionKey as stored.
func (c *writerCache) putAccount(a domain.Account) {
	if _, ok := c.accounts[a.SessionKey]; !ok && len(c.accounts) >= maxCachedAccounts {
		n := 0
		for k := range c.accounts {
			delete(c.accounts, k)
			if n++; n >= maxCachedAccounts/4 {
				break
			}
		}
	}
	c.accounts[a.SessionKey] = a
}

func (c *writerCache) forgetRuns(ids []string) {
	for _, id := range ids {
		c.dropRun(id)
	}
}

func (c *writerCache) forget(keys []string) {
	for _, k := range keys {
		delete(c.last, k)
		delete(c.sessions, k)
		delete(c.accounts, k)
	}
}

func (c *writerCache) reset() {
	clear(c.last)
	clear(c.sessions)
	clear(c.runs)
	c.runBytes = 0
	clear(c.accounts)
}
