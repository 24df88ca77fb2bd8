package sqlite

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/keylock"
	"github.com/switchboard-go/switchboard/internal/redact"
	"github.com/switchboard-go/switchboard/internal/store/msgbody"
)

var _ domain.Store = (*Store)(nil)

// writerCacheKiB is the page cache of the write connection. It fills only
// as far as writes need it: a store that sees a few updates a second keeps
// a few pages. It is small on purpose: SQLite's b-tree balance renumbers
// pages through the lock-byte page's number (262145 at 4 KiB pages), so on
// a database under 1 GiB nearly every write transaction ends by walking the
// whole page cache (pcache1TruncateUnsafe), at ~30 ns a cached page.
const writerCacheKiB = 4 << 10

// writerSpillKiB is how large the write connection's cache may grow with a
// transaction's dirty pages before SQLite spills them to the WAL mid
// transaction (cache_spill): a batch that inserts a few hundred sessions
// dirties pages all over seven b-trees, more than writerCacheKiB holds.
// The pages beyond writerCacheKiB are freed once they are clean.
const writerSpillKiB = 32 << 10

// Options tune a Store. The zero value is a good default.
type Options struct {
	// ReadConns is the size of the read connection pool
	// (default max(4, GOMAXPROCS)).
	ReadConns int
	// BusyTimeout bounds how long a statement waits for a lock held by
	// another process (default 5s). Within one process the single writer
	// never contends with itself and WAL readers never take locks.
	BusyTimeout time.Duration
	// MaxBatch caps how many queued Update calls share one transaction
	// (default 256).
	MaxBatch int
	// SyncFull selects synchronous=FULL: every commit is fsynced, so it also
	// survives power loss. The default, synchronous=NORMAL under WAL, already
	// keeps every acknowledged commit through a process crash (kill -9); it
	// only syncs at checkpoints.
	SyncFull bool
	// Transcripts is a glob (filepath.Glob) of the transcript files that
	// mirror this store. A zero-byte store file is opened as a new, empty
	// store only when nothing matches it; with transcripts beside it, the
	// store lost its contents and Open refuses it (ErrEmptyStore).
	Transcripts string
}

// ErrEmptyStore is Open's error for a zero-byte store file beside existing
// transcripts: opening it would present every session as gone.
var ErrEmptyStore = errors.New("the store file is empty")

// Stats are counters of the writer, for metrics.
type Stats struct {
	// QueueDepth is the number of Update calls waiting for the writer.
	QueueDepth int
	// Updates counts fn calls run by the writer (committed or failed; a fn
	// of a batch that ran again counts twice).
	Updates uint64
	// Retries counts batches that ran again, with a savepoint around each
	// fn, because one of their fns failed (writer.go).
	Retries uint64
	// Commits counts database transactions committed.
	Commits uint64
	// LastBatchSize is the number of fn calls in the last transaction.
	LastBatchSize int
	// LastCommitLatency is how long the last transaction took from BEGIN to
	// the end of COMMIT.
	LastCommitLatency time.Duration
	// Checkpoints counts background WAL checkpoints.
	Checkpoints uint64
	// WriterCheckpoints counts the checkpoints the writer ran itself to
	// bound the WAL (see checkpoint.go).
	WriterCheckpoints uint64
}

// Store is a domain.Store on one SQLite file. It is safe for concurrent
// use. Close it to stop its writer goroutine.
type Store struct {
	path     string
	maxBatch int

	wdb   *sql.DB
	wconn *sql.Conn // owned by the writer goroutine after Open
	rdb   *sql.DB
	cdb   *sql.DB // the checkpointer's connection

	// stmts caches statements prepared on wconn; only the writer uses it.
	stmts map[string]*sql.Stmt
	// rawStmts are statements prepared on wconn's driver connection, and
	// rawArgs their reused arguments (rawexec.go); writer only.
	rawStmts map[string]rawStmt
	rawArgs  []driver.NamedValue
	// writeFailed is the file system's refusal of a write in the current
	// batch (writefail.go); only the writer uses it.
	writeFailed *domain.Error
	// rstmts caches statements prepared on rdb (see readstmt.go).
	rmu    sync.Mutex
	rstmts map[string]*sql.Stmt
	// sessionCols names the columns of sessionArgs.
	sessionCols []string
	// updateQueries holds the UPDATE text of each set of changed columns
	// (updateChangedQuery); only the writer uses it.
	updateQueries map[updateShape]string
	// newID returns 8 random hex digits: the salt of a new generation's
	// entry ids, or an id of a legacy generation; tests replace it to force
	// collisions.
	newID func() string
	// cache is the writer's memory of each key's newest message
	// (writercache.go); encBuf is its scratch buffer for message JSON,
	// packBuf for one INSERT's packed ids (msgcols.go).
	cache      writerCache
	encBuf     []byte
	packBuf    []byte
	insertArgs []any
	insertSQL  [insertRowsMax + 1]string
	// redactor masks the text the search index holds (search.go).
	redactor redact.Redactor
	// pendingIndex are the index texts of the batch's successful fns, and
	// unindexed those of committed messages not indexed yet, rowids
	// ascending (searchindex.go); writer only.
	pendingIndex []indexRow
	unindexed    []indexRow
	// txIndex is the slice each fn's tx.index starts from (runOne).
	txIndex []indexRow
	// pendingLag is the index lag the batch's appends allow, 0 when it
	// appended nothing; lag is that of the last batch that appended, 0
	// for indexLagMax (bulklag.go).
	pendingLag, lag int
	// searchRedactor is the readers' copy (snippets), so no reader shares
	// the writer's.
	searchRedactor redact.Redactor
	// prepArenas holds PrepareMessages' scratch arenas (*[]byte).
	prepArenas sync.Pool
	// codec compresses and decompresses message bodies (body.go); shared
	// by the writer and readers, it is safe for concurrent use.
	codec *msgbody.Codec
	// hasLegacyIDs: legacy_entry_ids has rows (see entryid.go). Only a
	// migration adds rows, so Open finds out once.
	hasLegacyIDs bool

	// mu orders Update's enqueue against Close's close(queue): senders hold
	// it shared, Close exclusively, so nothing is sent on a closed channel.
	mu     sync.RWMutex
	closed atomic.Bool
	queue  chan *request
	wg     sync.WaitGroup // the writer goroutine

	// gates are Gate's named locks (gate.go).
	gates keylock.Map

	// The checkpointer goroutine (see checkpoint.go).
	ckptKick chan struct{}
	ckptStop context.CancelFunc
	ckptWG   sync.WaitGroup
	wal      walState // writer-only
	// walRestart is walRestartFrames; tests lower it.
	walRestart  int
	busyTimeout time.Duration

	updates       atomic.Uint64
	commits       atomic.Uint64
	retries       atomic.Uint64
	lastBatch     atomic.Int64
	lastCommitDur atomic.Int64
	checkpoints   atomic.Uint64

	writerCheckpoints atomic.Uint64
}

// Open opens (creating if needed) the store at path, runs pending schema
// migrations and starts the writer. The directory must exist. A file that
// is not a SQLite database, belongs to another application or has a newer
// schema than this binary knows is refused with an error naming the path.
func Open(ctx context.Context, path string, opts Options) (*Store, error) {
	if path == "" {
		return nil, errors.New("open store: path is required")
	}
	switch {
	case opts.ReadConns < 0:
		return nil, fmt.Errorf("open store %s: Options.ReadConns must be >= 0 (got %d)", path, opts.ReadConns)
	case opts.MaxBatch < 0:
		return nil, fmt.Errorf("open store %s: Options.MaxBatch must be >= 0 (got %d)", path, opts.MaxBatch)
	case opts.BusyTimeout < 0:
		return nil, fmt.Errorf("open store %s: Options.BusyTimeout must be >= 0 (got %v)", path, opts.BusyTimeout)
	}
	if opts.ReadConns == 0 {
		opts.ReadConns = max(4, runtime.GOMAXPROCS(0))
	}
	if opts.MaxBatch == 0 {
		opts.MaxBatch = 256
	}
	if opts.BusyTimeout == 0 {
		opts.BusyTimeout = 5 * time.Second
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	if err := checkHeader(abs, opts.Transcripts); err != nil {
		return nil, err
	}
	if err := createPrivate(abs); err != nil {
		return nil, err
	}

	s := &Store{
		path:           abs,
		maxBatch:       opts.MaxBatch,
		stmts:          make(map[string]*sql.Stmt),
		rawStmts:       make(map[string]rawStmt),
		newID:          randomID,
		cache:          newWriterCache(),
		sessionCols:    sessionColumnNames(),
		updateQueries:  map[updateShape]string{},
		rstmts:         make(map[string]*sql.Stmt),
		queue:          make(chan *request, opts.MaxBatch),
		ckptKick:       make(chan struct{}, 1),
		busyTimeout:    opts.BusyTimeout,
		walRestart:     walRestartFrames,
		insertSQL:      insertMessagesSQL(),
		redactor:       redact.New(),
		searchRedactor: redact.New(),
		codec:          msgbody.Default(),
	}
	if err := s.open(ctx, opts); err != nil {
		s.closeDBs()
		return nil, err
	}
	// The checkpointer outlives Open's ctx: Close stops it.
	ckptCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	s.ckptStop = stop
	s.ckptWG.Add(1)
	go s.runCheckpointer(ckptCtx)
	s.wg.Add(1)
	go s.runWriter()
	return s, nil
}

func (s *Store) open(ctx context.Context, opts Options) error {
	syncMode := "NORMAL"
	if opts.SyncFull {
		syncMode = "FULL"
	}
	busy := fmt.Sprintf("busy_timeout(%d)", opts.BusyTimeout.Milliseconds())
	// journal_size_limit truncates a WAL that grew in a burst once it is
	// reset; wal_autocheckpoint is off, see checkpoint.go. The writer's
	// page cache and spill size: see writerCacheKiB and writerSpillKiB.
	// temp_store keeps savepoint journals in memory.
	wdsn := dsn(s.path, busy, "synchronous("+syncMode+")",
		"wal_autocheckpoint(0)", fmt.Sprintf("journal_size_limit(%d)", walSizeLimit),
		fmt.Sprintf("cache_size(%d)", -writerCacheKiB), fmt.Sprintf("cache_spill(%d)", -writerSpillKiB),
		"temp_store(MEMORY)")
	var err error
	if s.wdb, err = sql.Open("sqlite", wdsn); err != nil {
		return s.openErr(err)
	}
	s.wdb.SetMaxOpenConns(1)
	if s.wconn, err = s.wdb.Conn(ctx); err != nil {
		return s.openErr(err)
	}
	// Check before switching to WAL: that switch writes to the file, and a
	// file we refuse must stay untouched.
	if _, err := checkSchema(ctx, s.wconn, s.path); err != nil {
		return s.openErr(err)
	}
	var mode string
	if err := s.wconn.QueryRowContext(ctx, "PRAGMA journal_mode = WAL").Scan(&mode); err != nil {
		return s.openErr(err)
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("open store %s: journal_mode is %q, want wal (does the file system support shared memory?)", s.path, mode)
	}
	if err := migrate(ctx, s.wconn, s.path); err != nil {
		return s.openErr(err)
	}
	err = s.wconn.QueryRowContext(ctx, "SELECT 1 FROM legacy_entry_ids LIMIT 1").Scan(new(int))
	switch {
	case err == nil:
		s.hasLegacyIDs = true
	case !errors.Is(err, sql.ErrNoRows):
		return s.openErr(err)
	}

	// Readers are query-only so a bug can never write around the writer.
	rdsn := dsn(s.path, busy, "query_only(1)")
	if s.rdb, err = sql.Open("sqlite", rdsn); err != nil {
		return s.openErr(err)
	}
	s.rdb.SetMaxOpenConns(opts.ReadConns)
	s.rdb.SetMaxIdleConns(opts.ReadConns)
	if err := s.rdb.PingContext(ctx); err != nil {
		return s.openErr(err)
	}
	if s.cdb, err = sql.Open("sqlite", dsn(s.path, busy)); err != nil {
		return s.openErr(err)
	}
	s.cdb.SetMaxOpenConns(1)
	return nil
}

// openErr names the path and explains the SQLite codes a user can act on.
func (s *Store) openErr(err error) error {
	switch sqliteCode(err) {
	case sqlite3.SQLITE_NOTADB:
		return fmt.Errorf("open store %s: not a SQLite database: %w", s.path, err)
	case sqlite3.SQLITE_CORRUPT:
		return fmt.Errorf("open store %s: database file is corrupt: %w", s.path, err)
	case sqlite3.SQLITE_CANTOPEN:
		return fmt.Errorf("open store %s: cannot open the file (does its directory exist?): %w", s.path, err)
	}
	if strings.Contains(err.Error(), s.path) {
		return err
	}
	return fmt.Errorf("open store %s: %w", s.path, err)
}

// sqliteHeader starts every SQLite database file.
const sqliteHeader = "SQLite format 3\x00"

// checkHeader refuses a non-empty file that is not a SQLite database before
// SQLite gets to it, so the error is plain and nothing is written to it,
// and a zero-byte one that lost its contents (checkEmpty).
func checkHeader(path, transcripts string) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open store %s: %w", path, err)
	}
	defer f.Close()
	buf := make([]byte, len(sqliteHeader))
	n, err := io.ReadFull(f, buf)
	if n == 0 && (err == io.EOF || err == nil) {
		return checkEmpty(path, transcripts) // an empty file becomes a new database, unless it lost one
	}
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("open store %s: %w", path, err)
	}
	if !bytes.Equal(buf[:n], []byte(sqliteHeader)) {
		return fmt.Errorf("open store %s: not a SQLite database (bad file header)", path)
	}
	return nil
}

// checkEmpty decides whether a zero-byte store file at path may become a
// new database: yes in a fresh state dir, no when transcripts exist (the
// store lost its contents; sessions would silently vanish). A non-empty
// write-ahead log beside it still holds the database, so SQLite opens it.
func checkEmpty(path, transcripts string) error {
	if st, err := os.Stat(path + "-wal"); err == nil && st.Size() > 0 {
		return nil
	}
	if transcripts == "" {
		return nil
	}
	found, err := filepath.Glob(transcripts)
	if err != nil {
		return fmt.Errorf("open store %s: transcripts %q: %w", path, transcripts, err)
	}
	if len(found) == 0 {
		return nil
	}
	return fmt.Errorf("open store %s: %w but %d transcripts exist (%s)", path, ErrEmptyStore, len(found), transcripts)
}

// dsn builds a modernc.org/sqlite URI for path with the given pragmas.
func dsn(path string, pragmas ...string) string {
	// SQLite decodes %XX in URI paths; escape what would end or change the path.
	p := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(filepath.ToSlash(path))
	q := url.Values{}
	for _, pr := range pragmas {
		q.Add("_pragma", pr)
	}
	return "file:" + p + "?" + q.Encode()
}

// Path returns the absolute path of the database file.
func (s *Store) Path() string { return s.path }

// Stats returns the writer's counters.
func (s *Store) Stats() Stats {
	return Stats{
		QueueDepth:        len(s.queue),
		Updates:           s.updates.Load(),
		Commits:           s.commits.Load(),
		Retries:           s.retries.Load(),
		LastBatchSize:     int(s.lastBatch.Load()),
		LastCommitLatency: time.Duration(s.lastCommitDur.Load()),
		Checkpoints:       s.checkpoints.Load(),
		WriterCheckpoints: s.writerCheckpoints.Load(),
	}
}

// Close lets the writer finish the Update calls already queued, stops it
// and closes the database. Later calls fail with domain.ErrClosed. Close is
// idempotent.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed.Load() {
		s.mu.Unlock()
		return nil
	}
	s.closed.Store(true)
	close(s.queue)
	s.mu.Unlock()
	s.wg.Wait()
	s.ckptStop()
	s.ckptWG.Wait()
	return s.closeDBs()
}

func (s *Store) closeDBs() error {
	errs := s.closeReadStmts()
	if s.rdb != nil {
		errs = append(errs, s.rdb.Close())
	}
	if s.cdb != nil {
		errs = append(errs, s.cdb.Close())
	}
	for _, st := range s.stmts {
		errs = append(errs, st.Close())
	}
	errs = append(errs, s.closeRawStmts())
	if s.wconn != nil {
		errs = append(errs, s.wconn.Close())
	}
	if s.wdb != nil {
		errs = append(errs, s.wdb.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close store %s: %w", s.path, err)
	}
	return nil
}

// sqliteCode returns the primary SQLite result code of err, or 0.
func sqliteCode(err error) int {
	var e *sqlite.Error
	if errors.As(err, &e) {
		return e.Code() & 0xff
	}
	return 0
}

// readErr wraps a read error, reporting use after Close as ErrClosed.
func (s *Store) readErr(op string, err error) error {
	if s.closed.Load() {
		return fmt.Errorf("%s: %w", op, domain.ErrClosed)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// randomID returns 8 random hex characters, the entry id format of
// OpenClaw's JSONL transcripts.
func randomID() string {
	var b [4]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}
