package openclawimport

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// The SQLite layout of OpenClaw (since 2026.7 for session rows, 2026.8
// for transcripts): one database per agent at
// agents/<agentId>/agent/openclaw-agent.sqlite. Its schema_meta row
// 'primary' says role "agent", the schema version and the app version
// that created it; PRAGMA user_version carries the same schema version.
const (
	// AgentDBName is the file name of an agent's database.
	AgentDBName = "openclaw-agent.sqlite"
	// AgentSchemaVersion is the newest agent-database schema this
	// package reads and writes: the one of OpenClaw 2026.9.6.
	AgentSchemaVersion = 23
	// AgentSchemaApp is the OpenClaw version whose files were read to
	// learn AgentSchemaVersion.
	AgentSchemaApp = "2026.9.6"
	// maxEventBytes is OpenClaw's own bound on one stored event.
	maxEventBytes = 4 << 20
	// agentDBMmapBytes bounds how much of an agent database is mapped
	// into memory while it is read; pages beyond it are read as usual.
	agentDBMmapBytes = 1 << 30
)

// agentDBPath returns the path of agent dir's database under the state dir.
func agentDBPath(stateDir, agentDir string) string {
	return filepath.Join(stateDir, "agents", agentDir, "agent", AgentDBName)
}

// agentDB is one agent database opened read-only for an import.
type agentDB struct {
	path    string
	db      *sql.DB
	version int
	app     string
	// events: the database keeps transcripts (transcript_events);
	// without it (2026.7) transcripts are JSONL files in sessions/.
	events bool
	// joinedEvents is joinedEventsSQL prepared once for every session's
	// read, not once per session; nil without events.
	joinedEvents *sql.Stmt
}

// ErrNewerSchema is wrapped by the error refusing a database written by a
// newer OpenClaw than this package knows.
var ErrNewerSchema = errors.New("schema newer than this switchboard reads")

// openAgentDB opens path read-only and checks that it is an OpenClaw agent
// database this package can read: not locked by a writer for longer than
// lockWait, of a schema version it knows. Nothing is written to the
// file. Whether it is corrupt is quickCheck's to say.
func openAgentDB(ctx context.Context, path string, lockWait time.Duration) (_ *agentDB, err error) {
	p := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(filepath.ToSlash(path))
	q := url.Values{}
	q.Set("mode", "ro")
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", lockWait.Milliseconds()))
	q.Add("_pragma", "query_only(1)")
	// Mapped, the file's pages are read without a system call and a copy
	// each: the integrity check and the transcripts read every page once.
	q.Add("_pragma", fmt.Sprintf("mmap_size(%d)", agentDBMmapBytes))
	db, err := sql.Open("sqlite", "file:"+p+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	a := &agentDB{path: path, db: db}
	defer func() {
		if err != nil {
			db.Close()
		}
	}()
	var userVersion int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&userVersion); err != nil {
		return nil, a.explain(err)
	}
	var role sql.NullString
	var app sql.NullString
	err = db.QueryRowContext(ctx, "SELECT role, schema_version, app_version FROM schema_meta WHERE meta_key = 'primary'").Scan(&role, &a.version, &app)
	switch {
	case errors.Is(err, sql.ErrNoRows) || (err != nil && strings.Contains(err.Error(), "no such table")):
		return nil, fmt.Errorf("%s: not an OpenClaw agent database (no schema_meta row 'primary')", path)
	case err != nil:
		return nil, a.explain(err)
	}
	a.app = app.String
	if role.String != "agent" {
		return nil, fmt.Errorf("%s: schema_meta role is %q, want \"agent\"", path, role.String)
	}
	if v := max(a.version, userVersion); v > AgentSchemaVersion {
		return nil, fmt.Errorf("%s: agent database schema version %d (OpenClaw %s): %w, which knows versions up to %d (OpenClaw %s); upgrade switchboard",
			path, v, orUnknown(a.app), ErrNewerSchema, AgentSchemaVersion, AgentSchemaApp)
	}
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'transcript_events'").Scan(&n); err != nil {
		return nil, a.explain(err)
	}
	a.events = n > 0
	if a.events {
		if a.joinedEvents, err = db.PrepareContext(ctx, joinedEventsSQL); err != nil {
			return nil, a.explain(err)
		}
	}
	return a, nil
}

// close closes the database.
func (a *agentDB) close() error {
	if a.joinedEvents != nil {
		a.joinedEvents.Close()
	}
	return a.db.Close()
}

// quickCheck reads every page of the file: a corrupt page anywhere would
// stop the import halfway, so the import writes nothing before it passed.
func (a *agentDB) quickCheck(ctx context.Context) error {
	var verdict string
	if err := a.db.QueryRowContext(ctx, "PRAGMA quick_check(1)").Scan(&verdict); err != nil {
		return a.explain(err)
	}
	if verdict != "ok" {
		return fmt.Errorf("%s: the database is corrupt (quick_check: %s)", a.path, verdict)
	}
	return nil
}

func orUnknown(s string) string {
	if s == "" {
		return "version unknown"
	}
	return s
}

// explain names the file and says what the SQLite codes a user can act on
// mean.
func (a *agentDB) explain(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return fmt.Errorf("%s: the database is locked by another process (is OpenClaw running? stop it before importing): %w", a.path, err)
		case sqlite3.SQLITE_NOTADB:
			return fmt.Errorf("%s: not a SQLite database: %w", a.path, err)
		case sqlite3.SQLITE_CORRUPT:
			return fmt.Errorf("%s: the database is corrupt: %w", a.path, err)
		case sqlite3.SQLITE_CANTOPEN:
			return fmt.Errorf("%s: cannot open the file: %w", a.path, err)
		}
	}
	return fmt.Errorf("%s: %w", a.path, err)
}

// nodeRow is one session_nodes row with the columns the import reads
// beside entry_json.
type nodeRow struct {
	key, sessionID, entryJSON          string
	label, displayName                 sql.NullString
	spawnedBy, parentKey, status       sql.NullString
	updatedAt                          sql.NullInt64
	channel, chatType, account         sql.NullString
	startedAt, endedAt                 sql.NullInt64
	windowModel, windowModelProvider   sql.NullString
	windowStatus                       sql.NullString
	windowDisplayName, windowSpawnedBy sql.NullString
}

// nodes reads every session row, joined with its current window.
func (a *agentDB) nodes(ctx context.Context) ([]nodeRow, error) {
	rows, err := a.db.QueryContext(ctx, `SELECT n.session_key, n.current_session_id, n.entry_json,
		n.label, n.display_name, n.spawned_by, n.parent_session_key, n.status, n.updated_at,
		w.channel, w.chat_type, w.account_id, w.started_at, w.ended_at, w.model, w.model_provider,
		w.status, w.display_name, w.spawned_by
		FROM session_nodes n LEFT JOIN session_windows w ON w.session_id = n.current_session_id
		ORDER BY n.session_key`)
	if err != nil {
		return nil, a.explain(err)
	}
	defer rows.Close()
	var out []nodeRow
	for rows.Next() {
		var r nodeRow
		if err := rows.Scan(&r.key, &r.sessionID, &r.entryJSON, &r.label, &r.displayName, &r.spawnedBy, &r.parentKey, &r.status, &r.updatedAt,
			&r.channel, &r.chatType, &r.account, &r.startedAt, &r.endedAt, &r.windowModel, &r.windowModelProvider,
			&r.windowStatus, &r.windowDisplayName, &r.windowSpawnedBy); err != nil {
			return nil, a.explain(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, a.explain(err)
	}
	return out, nil
}

// joinedEventsSQL reads a session's events joined in one value, with how
// many there are and how many of them are not compressed. The ordered
// subquery walks the primary key (session_id, seq), so the events come in
// seq order without the sort an ORDER BY inside group_concat costs
// (SQLite does not flatten an ordered subquery into an aggregate, so its
// order is the order concatenated). The joined value is cast to a BLOB,
// the same bytes, so it is scanned without a copy (readJoined).
const joinedEventsSQL = `SELECT CAST(group_concat(event_json, char(10)) AS BLOB), count(*), count(event_json)
	FROM (SELECT event_json FROM transcript_events WHERE session_id = ? ORDER BY seq)`

// eventReader reads a session's transcript events as JSONL, the form the
// transcript package parses, reusing its buffers from session to session.
type eventReader struct {
	buf []byte
	dec *zstd.Decoder
}

// read appends the events of sessionID, in seq order, one line each, to
// a buffer it returns (valid until the next read).
func (er *eventReader) read(ctx context.Context, a *agentDB, sessionID string) ([]byte, error) {
	// Most transcripts hold no compressed event: SQLite joins their
	// lines in one value, which saves a database/sql row per event.
	total, plain, err := er.readJoined(ctx, a, sessionID)
	if err != nil {
		return nil, a.explain(err)
	}
	if total == plain {
		if len(er.buf) > 0 {
			er.buf = append(er.buf, '\n')
		}
		return er.buf, nil
	}
	rows, err := a.db.QueryContext(ctx, "SELECT seq, event_json, event_zstd FROM transcript_events WHERE session_id = ? ORDER BY seq", sessionID)
	if err != nil {
		return nil, a.explain(err)
	}
	defer rows.Close()
	er.buf = er.buf[:0]
	var (
		seq  int64
		js   sql.RawBytes
		zstd sql.RawBytes
	)
	for rows.Next() {
		if err := rows.Scan(&seq, &js, &zstd); err != nil {
			return nil, a.explain(err)
		}
		if js != nil {
			er.buf = append(er.buf, js...)
		} else {
			if er.buf, err = er.inflate(er.buf, zstd); err != nil {
				return nil, fmt.Errorf("%s: session %s event %d: %w", a.path, sessionID, seq, err)
			}
		}
		er.buf = append(er.buf, '\n')
	}
	if err := rows.Err(); err != nil {
		return nil, a.explain(err)
	}
	return er.buf, nil
}

// readJoined reads the joined events of sessionID into er.buf (only
// meaningful when every event is plain), with how many events there are
// and how many are plain. joinedEventsSQL returns the value as a BLOB and
// it is scanned as sql.RawBytes: database/sql then hands over the
// driver's copy instead of making another one per session.
func (er *eventReader) readJoined(ctx context.Context, a *agentDB, sessionID string) (total, plain int64, err error) {
	rows, err := a.joinedEvents.QueryContext(ctx, sessionID)
	if err != nil {
		return 0, 0, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return 0, 0, err
		}
		return 0, 0, sql.ErrNoRows
	}
	var joined sql.RawBytes
	if err := rows.Scan(&joined, &total, &plain); err != nil {
		return 0, 0, err
	}
	er.buf = append(er.buf[:0], joined...)
	return total, plain, rows.Close()
}

func (er *eventReader) inflate(dst, src []byte) ([]byte, error) {
	if er.dec == nil {
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(2*maxEventBytes))
		if err != nil {
			return dst, err
		}
		er.dec = d
	}
	out, err := er.dec.DecodeAll(src, dst)
	if err != nil {
		return dst, fmt.Errorf("event_zstd: %w", err)
	}
	return out, nil
}

func (er *eventReader) close() {
	if er.dec != nil {
		er.dec.Close()
	}
}
