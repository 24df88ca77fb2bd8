// Package sqlite is switchboard's default store: domain.Store on one SQLite
// file (modernc.org/sqlite, no cgo) in WAL mode.
//
// # Writes
//
// A single writer goroutine owns the write connection. It takes every
// Update call waiting in its queue (up to Options.MaxBatch), runs each fn
// inside its own SAVEPOINT of one transaction and commits once (group
// commit), so many concurrent writers cost one commit instead of one each.
// A failing or panicking fn rolls back only its savepoint. Update returns
// after the COMMIT.
//
// Durability: under WAL with synchronous=NORMAL a committed transaction is
// in the WAL file before COMMIT returns, so an acknowledged Update survives
// a process crash (kill -9); Options.SyncFull adds an fsync per commit for
// power loss. WAL checkpoints run on a background goroutine with its own
// connection instead of inside a writer's COMMIT; the writer itself makes
// the WAL restart once it passes 64 MiB and truncates it when idle
// (checkpoint.go), so the WAL stays bounded under sustained writes.
//
// The writer remembers each key's newest message (writercache.go), so an
// append needs no index read to find its seq and parent, and a batch of one
// Update runs without a savepoint.
//
// # Reads
//
// Reads use a pool of query-only connections; under WAL they see the last
// committed state and never wait for the writer. Every read is one SQL
// statement, so it reads one snapshot. Statements are prepared once and
// reused (readstmt.go). Two SQLite behaviours would silently re-parse them
// on every call, so the schema avoids them: partial indexes, and LIMIT as a
// plain bound parameter (written "LIMIT +?"). For the same reason the store
// never runs ANALYZE: this SQLite build has STAT4, whose samples would make
// every statement comparing a bound value with an indexed column re-prepare.
// The planner's choices without statistics are pinned by TestListUsesIndexes.
//
// # Schema
//
// The schema version is PRAGMA user_version and PRAGMA application_id marks
// the file as a switchboard store. Open runs the pending migrations
// (schema.go) in one transaction. A file that is not SQLite, belongs to
// another application, or has a newer schema than this binary is refused
// with an error naming the path, before anything is written to it.
//
// Sessions keep as columns only what SQL filters, orders and indexes on
// (key, agent, session id, kind, spawned_by, label, updated_at,
// archived_at, search text), indexed for the list order (updated_at DESC,
// key), agent, session id, spawned_by and label; the whole row is one
// encoded BLOB (sessionrow.go), so reading a row is one column and one
// allocation. A listing without a limit scans the table and sorts in Go
// instead of walking the index with a random lookup per row. Messages keep
// the raw transcript JSON (compressed) plus their store fields as narrow
// columns: a generation number from message_gens instead of the key and
// session id, packed ids and role codes (narrow.go, msgcols.go), indexed
// on (gen, seq) only: entry ids are unique per transcript by construction
// (entryid.go). There are no foreign keys: a transcript may exist without
// a session row (AppendMessages never touches the row, and a fn may append
// before it puts the row).
//
// Search matches a substring of the lower-cased key, label and display
// name, lower-cased by Go (so beyond ASCII) into one column when the row
// is written.
package sqlite
