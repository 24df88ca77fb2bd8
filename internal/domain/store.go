package domain

import "context"

// SessionQuery selects session rows. Zero fields do not filter. Rows come
// back newest UpdatedAt first (ties broken by key ascending).
type SessionQuery struct {
	AgentID string
	// AgentIDs, when non-empty, keeps rows whose agent is in the list.
	AgentIDs []string
	// Kinds keeps rows whose stored kind is in the list.
	Kinds []string
	// SpawnedBy keeps direct children of this session key.
	SpawnedBy string
	// TreeRoot keeps this key and every session spawned from it, transitively.
	TreeRoot string
	// UpdatedSince keeps rows with UpdatedAt >= this (Unix ms).
	UpdatedSince int64
	Label        string
	// Search matches a case-insensitive substring of key, label or display name.
	Search          string
	IncludeArchived bool
	// OnlyArchived keeps only archived rows (archived_at > 0).
	OnlyArchived bool
	// ExcludeCronRuns drops the sessions of cron runs, whose keys are
	// agent:<id>:cron:<job>:run:<run> (or legacy cron:<job>:run:<run>), as
	// OpenClaw's sessions.list does (OpenClaw's gateway methods, filter 1).
	ExcludeCronRuns bool
	// After is a cursor: rows strictly after (UpdatedAt, Key) in list order.
	AfterUpdatedAt int64
	AfterKey       string
	// Offset skips this many rows of the ordered result before Limit.
	Offset int
	Limit  int
}

// MessageQuery selects transcript messages of one session key.
type MessageQuery struct {
	// SessionID selects a transcript generation; empty means the key's current one.
	SessionID string
	// Limit is the number of newest messages returned (0 = all).
	Limit int
	// BeforeSeq pages backwards: only messages with Seq < BeforeSeq.
	BeforeSeq int64
	// BeforeID pages backwards from a message id of the generation: only
	// messages older than it. An id the generation does not have is an
	// error wrapping ErrNotFound.
	BeforeID string
	// Offset skips this many of the newest matching messages (after
	// ExcludeRoles, BeforeSeq and BeforeID) before Limit applies.
	Offset int
	// ExcludeRoles drops messages with these roles before the limit applies.
	ExcludeRoles []string
	// Oldest makes Limit count from the oldest matching message instead
	// of the newest (Offset must be 0): a listing's derived title reads a
	// generation's first messages without reading the rest.
	Oldest bool
}

// RunQuery selects runs, newest CreatedAt first.
type RunQuery struct {
	SessionKey  string
	ParentRunID string
	Statuses    []RunStatus
	Kinds       []RunKind
	Limit       int
}

// OutboxQuery selects outbox rows, oldest first.
type OutboxQuery struct {
	Statuses   []OutboxStatus
	SessionKey string
	RunID      string
	// DueBefore keeps rows whose NextAttemptAt <= this (Unix ms); 0 = any.
	DueBefore int64
	Limit     int
}

// StoreReader is the read side of a store. Reads never block on writers.
type StoreReader interface {
	// GetSession returns ErrNotFound when the key has no row.
	GetSession(ctx context.Context, key string) (Session, error)
	// FindSessionsByID returns every row whose current SessionID equals id.
	FindSessionsByID(ctx context.Context, sessionID string) ([]Session, error)
	ListSessions(ctx context.Context, q SessionQuery) ([]Session, error)
	CountSessions(ctx context.Context, q SessionQuery) (int, error)
	// ReadMessages returns messages in chronological order (oldest first).
	ReadMessages(ctx context.Context, key string, q MessageQuery) ([]Message, error)
	GetRun(ctx context.Context, id string) (Run, error)
	// GetRunByIdempotencyKey returns ErrNotFound when no run has that key.
	GetRunByIdempotencyKey(ctx context.Context, key string) (Run, error)
	ListRuns(ctx context.Context, q RunQuery) ([]Run, error)
	ListOutbox(ctx context.Context, q OutboxQuery) ([]OutboxItem, error)
	MessageSearcher
	// GetAccounts returns the usage accounts of keys (a key without one
	// gets a zero account), one point read each: never a tree scan.
	GetAccounts(ctx context.Context, keys []string) (map[string]Account, error)
	// UsageReport sums the usage ledger grouped by q.By.
	UsageReport(ctx context.Context, q UsageQuery) ([]UsageGroup, error)
}

// Tx is the write side, valid only inside Store.Update. Its reads see the
// transaction's own writes.
type Tx interface {
	GetSession(key string) (Session, error)
	GetRun(id string) (Run, error)
	// PutSession inserts or replaces the row with s.Key.
	PutSession(s Session) error
	// DeleteSession removes the row and all its messages.
	DeleteSession(key string) error
	// AppendMessages appends to the transcript of (key, sessionID), assigning
	// Seq, ID (8 hex chars) and ParentID; it returns the stored messages.
	AppendMessages(key, sessionID string, msgs []Message) ([]Message, error)
	// CreateRun inserts r. When r.IdempotencyKey is set and a run with that
	// key exists, it returns the existing run and created=false.
	CreateRun(r Run) (stored Run, created bool, err error)
	// PutRun replaces an existing run (ErrNotFound if missing).
	PutRun(r Run) error
	// EnqueueOutbox inserts item unless its IdempotencyKey exists; it returns
	// the stored row and whether it was new.
	EnqueueOutbox(item OutboxItem) (stored OutboxItem, created bool, err error)
	// PutOutbox replaces an existing outbox row by ID.
	PutOutbox(item OutboxItem) error
	// GetAccount returns the usage account of key, a zero one (with
	// SessionKey set) when it has none.
	GetAccount(key string) (Account, error)
	// PutAccount inserts or replaces the account of a.SessionKey.
	PutAccount(a Account) error
	// AddUsage adds add to the tree rollup of key's account (and to its own
	// usage when self), creating the account (with spawnedBy) when it has
	// none, and returns the account as it is after the add: one statement,
	// for the walk up a spawn chain that charges a model step.
	AddUsage(key, spawnedBy string, self bool, add UsageTotals) (Account, error)
	// RecordUsage appends one charge to the usage ledger.
	RecordUsage(e UsageEntry) error
}

// Store is the durable state of switchboard: sessions, transcripts, runs and
// the outbox. Every backend passes the conformance suite in store/storetest.
type Store interface {
	StoreReader
	// Update runs fn in a write transaction. fn's writes commit together, or
	// not at all when fn returns an error (which Update returns). Update
	// returns only after the commit is durable. Implementations may batch
	// several Update calls into one database transaction, and may run fn
	// more than once (SQLite re-runs a batch one fn at a time after one of
	// its fns failed; PostgreSQL re-runs fn after a serialization failure),
	// so fn must have no effect outside tx and must set, not accumulate,
	// whatever it hands back to its caller.
	Update(ctx context.Context, fn func(Tx) error) error
	// Gate holds the lock named name until release is called, excluding
	// every other holder of that name among the processes that share this
	// store (SQLite: the one process; PostgreSQL: every replica on the
	// database). It serializes a check that reads committed rows with the
	// commit the check guards (a limit, a uniqueness rule), where a Tx
	// alone cannot. Different names do not exclude each other. Waiting
	// ends with ctx's error when ctx ends first; release must be called
	// exactly once (on PostgreSQL it is one round trip, whatever the
	// caller's ctx). Gates are not reentrant: a holder asking again for a
	// name it holds waits for itself.
	Gate(ctx context.Context, name string) (release func(), err error)
	Close() error
}

// DeferredStore is a Store that can commit a transaction before it is
// durable and say later when it is (PostgreSQL: an asynchronous commit,
// made durable by the next flush of the server's log). A caller that uses
// it acknowledges nothing of fn's writes, and makes nothing of them
// visible to clients, before Durable.Wait returns; its gain is that work
// started meanwhile (a run's model call) needs no flush of its own when a
// later durable commit carries both.
type DeferredStore interface {
	Store
	// UpdateDeferred is Update without the wait for durability: it returns
	// once fn's writes are committed and visible to other transactions.
	UpdateDeferred(ctx context.Context, fn func(Tx) error) (Durable, error)
}

// Durable is the durability of one deferred commit.
type Durable interface {
	// Wait returns once the commit is durable: at once when a later
	// durable commit already carried it, else after a short grace for one
	// to come by, forcing a flush when none does.
	Wait(ctx context.Context) error
}

// Generation names one transcript generation: a session key and the
// session id its messages were written under.
type Generation struct {
	Key       string
	SessionID string
}

// TailsReader is implemented by stores that read the newest messages of
// many generations in one query. sessions_list with messageLimit reads
// the tails of up to 200 rows: one query instead of 200 is most of what
// such a listing costs. Stores without it are read one generation at a
// time through ReadMessages, with the same result.
type TailsReader interface {
	// ReadTails returns, for each of gens (same order), its newest limit
	// messages (limit ≥ 1) whose role is not in excludeRoles, oldest
	// first: what ReadMessages returns for MessageQuery{SessionID, Limit,
	// ExcludeRoles}.
	ReadTails(ctx context.Context, gens []Generation, limit int, excludeRoles []string) ([][]Message, error)
}

// MessagePreparer is implemented by stores whose AppendMessages does work
// per message that depends on the message alone (encoding and compressing
// its body, masking the text the search index holds). A bulk writer (the
// OpenClaw import) prepares messages on its own goroutines, ahead of
// Update, and appends them with PreparedAppender, so the store's single
// writer does little more than the SQL. PrepareMessages is safe for
// concurrent use; the result belongs to the store that made it.
type MessagePreparer interface {
	PrepareMessages(msgs []Message) (PreparedMessages, error)
}

// PreparedMessages is what a MessagePreparer made of some messages.
type PreparedMessages interface {
	// Len is the number of messages.
	Len() int
}

// PreparedAppender is implemented by the Tx of a MessagePreparer.
// AppendPrepared stores p exactly as AppendMessages would store the
// messages p was prepared from, and returns the same result. p is not
// changed, so an Update that runs fn again may pass it again.
type PreparedAppender interface {
	AppendPrepared(key, sessionID string, p PreparedMessages) ([]Message, error)
}

// SearchIndexer is implemented by stores whose search index may lag the
// messages (SQLite indexes a tail of recent appends later, in larger
// transactions). IndexPending indexes every message committed before the
// call and returns once that is committed, so a bulk writer (the OpenClaw
// import) can leave the index complete when it returns instead of leaving
// the tail to the first search. A store without it indexes as it writes.
type SearchIndexer interface {
	IndexPending(ctx context.Context) error
}

// StoredMessage is a message as the store holds it: its seq, its id, and
// its raw transcript JSON with the id as the first member, the form
// sessions_history shows (`{"id":…,"role":…}`: what json.Marshal writes
// for the id followed by the Message's members, except that <, > and &
// may be left unescaped).
type StoredMessage struct {
	Seq  int64
	ID   string
	JSON []byte
}

// TailsJSONReader is implemented by stores that can return tails without
// decoding them. sessions_list passes each message's JSON through to its
// result: decoding 1,000 messages only to encode them again was a fifth of
// a messageLimit listing's CPU.
type TailsJSONReader interface {
	// ReadTailsJSON is ReadTails with each message left as stored, its id
	// put first.
	ReadTailsJSON(ctx context.Context, gens []Generation, limit int, excludeRoles []string) ([][]StoredMessage, error)
}

// TranscriptMessage is a stored message as a transcript line carries it:
// its id, its parent's, its time, and its raw transcript JSON (what
// json.Marshal writes for the Message, except that <, > and & may be left
// unescaped; the id and parent are not among its members).
type TranscriptMessage struct {
	ID, ParentID string
	Timestamp    int64
	JSON         []byte
}

// TranscriptJSONReader is implemented by stores that can return a
// generation's messages without decoding them. The OpenClaw export puts
// each message's JSON into its transcript line as it is: decoding every
// message only to encode it again cost more than reading it.
type TranscriptJSONReader interface {
	// ReadTranscriptJSON returns the messages of generation sessionID of
	// key, oldest first: what ReadMessages returns for
	// MessageQuery{SessionID: sessionID}, left as stored.
	ReadTranscriptJSON(ctx context.Context, key, sessionID string) ([]TranscriptMessage, error)
}
