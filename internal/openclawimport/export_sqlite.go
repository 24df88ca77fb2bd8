package openclawimport

import (
	"context"
	"database/sql"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unsafe"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/transcript"
)

// agentSchemaSQL is the schema of an agent database of version
// AgentSchemaVersion, as `sqlite3 FILE .schema` prints it for a file
// OpenClaw 2026.9.6 wrote (testdata/openclaw-2026.9.6/README.md). OpenClaw
// checks an agent database's tables, columns, indexes and triggers against
// its own schema when it opens one, so an exported database carries the
// same schema, triggers included: those mark every exported row for
// OpenClaw's own validation on first open.
//
//go:embed agentschema_v23.sql
var agentSchemaSQL string

// transcriptVersion is the session-header version OpenClaw 2026.9.6
// writes in transcript_events.
const transcriptVersion = 4

// agentSQLite writes agent's sessions into a new
// agents/<agent>/agent/openclaw-agent.sqlite. It returns once every row
// but the identities is committed; finish does the rest (moving the
// identities in from their side file, closing the database), which uses
// one core only, so Export runs it while it writes the next agent. When
// agentSQLite fails, it has cleaned up itself and finish is nil.
func (w *exportWriter) agentSQLite(agent string, sessions []domain.Session) (finish func() error, err error) {
	dir := filepath.Join(w.root, "agents", agent, "agent")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, AgentDBName)
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path)+"?"+exportPragmas)
	if err != nil {
		return nil, err
	}
	var iw *identityWriter
	defer func() {
		if finish != nil {
			return // finish owns db and the side file now
		}
		if iw != nil {
			iw.finish()
			iw.remove()
		}
		db.Close()
	}()
	db.SetMaxOpenConns(1)
	ctx := w.ctx
	// transcript_events and the window rows are keyed by session id: in
	// that order each insert lands on the rightmost page of its keys'
	// B-tree instead of anywhere in it.
	sessions = slices.Clone(sessions)
	slices.SortFunc(sessions, func(a, b domain.Session) int { return strings.Compare(a.SessionID, b.SessionID) })
	if _, err := db.ExecContext(ctx, agentSchemaSQL); err != nil {
		return nil, fmt.Errorf("%s: create schema: %w", path, err)
	}
	identitySchema, err := tableSchema(agentSchemaSQL, "transcript_event_identities")
	if err != nil {
		return nil, err
	}
	if iw, err = startIdentityWriter(ctx, path, identitySchema); err != nil {
		return nil, err
	}
	if err := w.agentRows(ctx, db, path, agent, sessions, iw); err != nil {
		return nil, err
	}
	if err := iw.finish(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	w.progress()
	return func() error {
		err := iw.copyInto(ctx, db)
		if err == nil {
			_, err = db.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", AgentSchemaVersion))
		}
		err = errors.Join(err, db.Close(), iw.remove())
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return nil
	}, nil
}

// agentRows writes every row of the agent database at path but the
// identities, which go to iw, in one transaction.
func (w *exportWriter) agentRows(ctx context.Context, db *sql.DB, path, agent string, sessions []domain.Session, iw *identityWriter) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	now := w.opts.Now().UnixMilli()
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_meta (meta_key, role, schema_version, agent_id, app_version, created_at, updated_at)
		VALUES ('primary', 'agent', ?, ?, ?, ?, ?)`, AgentSchemaVersion, agent, AgentSchemaApp, now, now); err != nil {
		return fmt.Errorf("%s: schema_meta: %w", path, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO session_key_contract (id, main_key, canonical_ready, updated_at) VALUES (1, 'main', NULL, 0)`); err != nil {
		return fmt.Errorf("%s: session_key_contract: %w", path, err)
	}
	ins, err := prepareInserts(ctx, tx, iw)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer ins.close()
	err = w.each(sessions, func(s *domain.Session, msgs []domain.TranscriptMessage) ([]byte, error) {
		_, created := sessionTimes(s, now)
		h := transcript.Header{Version: transcriptVersion, ID: s.SessionID, Cwd: w.final, Timestamp: transcript.FormatTime(msTime(created))}
		return transcript.EncodeStored(h, msgs)
	}, func(x *exported) error {
		if err := ins.session(ctx, x.s, x.msgs, x.data, now); err != nil {
			return fmt.Errorf("%s: session %s: %w", path, x.s.Key, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	// The schema's triggers mark each inserted row unvalidated
	// (entry_valid 0), and OpenClaw refuses to read such a row until its
	// doctor repaired it. Every row here was written whole, with
	// updated_at and the lineage columns equal to its entry's, which is
	// what OpenClaw's own writer certifies before it sets entry_valid 1;
	// the rows stay queued in session_canonical_validation_pending for
	// OpenClaw to check again.
	if _, err := tx.ExecContext(ctx, "UPDATE session_nodes SET entry_valid = 1"); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := ins.flush(ctx); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// exportPragmas tune the connection writing a new agent database, a file
// nobody reads before the export renames it into place: no journal and
// no sync (a failed export is thrown away whole), and one lock for the
// whole write instead of one per transaction.
const exportPragmas = "_pragma=synchronous(OFF)&_pragma=journal_mode(OFF)&_pragma=locking_mode(EXCLUSIVE)"

// inserts are the prepared statements of one agent database's export.
type inserts struct {
	node, window, event *sql.Stmt
	// events inserts rowsPerInsert rows at once; rows queue in
	// eventArgs until a statement's worth is there.
	events    *sql.Stmt
	eventArgs []any
	// identities writes the identity rows; they queue in identityArgs
	// until a batch's worth is there.
	identities   *identityWriter
	identityArgs []any
}

// rowsPerInsert is how many rows one multi-row INSERT of events or
// identities writes: one statement per row was most of an export's time.
const rowsPerInsert = 64

// multiRow repeats a row's placeholders n times.
func multiRow(row string, n int) string {
	return strings.TrimSuffix(strings.Repeat(row+", ", n), ", ")
}

const (
	eventInsert    = `INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_utf8_bytes) VALUES `
	eventRow       = `(?, ?, ?, ?, ?)`
	identityInsert = `INSERT INTO transcript_event_identities (session_id, event_id, seq, event_type, parent_id, created_at) VALUES `
	identityRow    = `(?, ?, ?, ?, ?, ?)`
)

// addEvent queues one transcript_events row and, when id is set, its
// identity, writing a full batch. The values go straight into the
// queues: no slice per row.
func (ins *inserts) addEvent(ctx context.Context, sessionID any, seq int, line string, at int64, id string, typ, parent any) error {
	// int64, not int: database/sql passes an int64 on as it is and
	// converts an int through reflection.
	ins.eventArgs = append(ins.eventArgs, sessionID, int64(seq), line, at, int64(len(line)))
	if id != "" {
		ins.identityArgs = append(ins.identityArgs, sessionID, id, int64(seq), typ, parent, at)
	}
	if len(ins.eventArgs) == rowsPerInsert*5 {
		if _, err := ins.events.ExecContext(ctx, ins.eventArgs...); err != nil {
			return fmt.Errorf("transcript_events: %w", err)
		}
		ins.eventArgs = ins.eventArgs[:0]
	}
	if len(ins.identityArgs) == rowsPerInsert*6 {
		return ins.sendIdentities(ctx)
	}
	return nil
}

// sendIdentities hands the queued identities to their writer, which
// owns them from then on.
func (ins *inserts) sendIdentities(ctx context.Context) error {
	if len(ins.identityArgs) == 0 {
		return nil
	}
	if err := ins.identities.add(ctx, ins.identityArgs); err != nil {
		return err
	}
	ins.identityArgs = make([]any, 0, rowsPerInsert*6)
	return nil
}

// flushEvents writes the queued events one by one.
func (ins *inserts) flushEvents(ctx context.Context) error {
	for a := ins.eventArgs; len(a) > 0; a = a[5:] {
		if _, err := ins.event.ExecContext(ctx, a[:5]...); err != nil {
			return fmt.Errorf("transcript_events: %w", err)
		}
	}
	ins.eventArgs = ins.eventArgs[:0]
	return nil
}

// flush writes every queued row.
func (ins *inserts) flush(ctx context.Context) error {
	if err := ins.flushEvents(ctx); err != nil {
		return err
	}
	return ins.sendIdentities(ctx)
}

func prepareInserts(ctx context.Context, tx *sql.Tx, identities *identityWriter) (*inserts, error) {
	ins := inserts{identities: identities}
	for _, p := range []struct {
		dst **sql.Stmt
		sql string
	}{
		{&ins.node, `INSERT INTO session_nodes (session_key, current_session_id, entry_json, updated_at, status, created_at,
			spawned_by, parent_session_key, label, display_name) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`},
		{&ins.window, `INSERT INTO session_windows (session_id, session_key, created_at, updated_at, transcript_updated_at,
			session_entry_provenance, started_at, ended_at, status, chat_type, channel, account_id, model_provider, model,
			spawned_by, display_name) VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`},
		{&ins.event, eventInsert + eventRow},
		{&ins.events, eventInsert + multiRow(eventRow, rowsPerInsert)},
	} {
		st, err := tx.PrepareContext(ctx, p.sql)
		if err != nil {
			ins.close()
			return nil, err
		}
		*p.dst = st
	}
	return &ins, nil
}

func (ins *inserts) close() {
	for _, st := range []*sql.Stmt{ins.node, ins.window, ins.event, ins.events} {
		if st != nil {
			st.Close()
		}
	}
}

// statuses and chat types OpenClaw's columns accept; anything else is
// left to entry_json.
var (
	windowStatuses  = map[string]bool{"running": true, "done": true, "failed": true, "killed": true, "timeout": true}
	windowChatTypes = map[string]bool{"direct": true, "group": true, "channel": true}
)

// session writes s's row, its window and its transcript's events: data is
// the transcript as the JSONL layout holds it (the session header, then
// one line per message), each line an event.
func (ins *inserts) session(ctx context.Context, s *domain.Session, msgs []domain.TranscriptMessage, data []byte, now int64) error {
	updated, created := sessionTimes(s, now)
	// OpenClaw takes a row whose updated_at differs from its entry's
	// updatedAt for a damaged one.
	e := exportEntry(s)
	e.UpdatedAt = flexInt(updated)
	ej, err := marshalEntry(&e)
	if err != nil {
		return err
	}
	status := nullIf(s.Status, windowStatuses[s.Status])
	if _, err := ins.node.ExecContext(ctx, s.Key, s.SessionID, string(ej), updated, status, created,
		nullIf(s.SpawnedBy, true), nullIf(s.SpawnedBy, true), nullIf(s.Label, true), nullIf(s.DisplayName, true)); err != nil {
		return fmt.Errorf("session_nodes: %w", err)
	}
	// The window's account is the row's last account (the import reads
	// it back as lastAccountId); the delivery context keeps its own.
	account := s.LastAccount
	var trUpdated any
	if len(msgs) > 0 {
		trUpdated = max(msgs[len(msgs)-1].Timestamp, created)
	}
	if _, err := ins.window.ExecContext(ctx, s.SessionID, s.Key, created, updated, trUpdated,
		nullInt(s.StartedAt), nullInt(s.EndedAt), status, nullIf(s.ChatType, windowChatTypes[s.ChatType]),
		nullIf(s.Channel, true), nullIf(account, true), nullIf(s.ModelProvider, true), nullIf(s.Model, true),
		nullIf(s.SpawnedBy, true), nullIf(s.DisplayName, true)); err != nil {
		return fmt.Errorf("session_windows: %w", err)
	}
	// One string for the whole transcript; each event's line is a slice
	// of it, not a copy of its own. The string shares data's bytes:
	// nothing writes data once it is encoded.
	rest := strings.TrimSuffix(unsafe.String(unsafe.SliceData(data), len(data)), "\n")
	// Boxed once for all of the session's rows, not once per row.
	sessionID := any(s.SessionID)
	if n := strings.Count(rest, "\n") + 1; n != len(msgs)+1 {
		return fmt.Errorf("internal error: %d transcript lines for %d messages", n, len(msgs))
	}
	for seq := 0; seq <= len(msgs); seq++ {
		line, next, _ := strings.Cut(rest, "\n")
		rest = next
		at := created
		typ, id, parent := typeSession, s.SessionID, any(nil)
		if seq > 0 {
			m := &msgs[seq-1]
			at = max(m.Timestamp, created)
			typ, id = typeMessage, m.ID
			if m.ParentID != "" {
				parent = m.ParentID
			}
		}
		if len(line) > maxEventBytes {
			return fmt.Errorf("event %d is %d bytes, more than OpenClaw's limit of %d", seq, len(line), maxEventBytes)
		}
		if err := ins.addEvent(ctx, sessionID, seq, line, at, id, typ, parent); err != nil {
			return err
		}
	}
	return nil
}

// typeSession and typeMessage are the event types as arguments, boxed
// once.
var typeSession, typeMessage any = transcript.TypeSession, transcript.TypeMessage

// sessionTimes returns when s was last updated and created as its row
// says them, now standing in for a time the store has none of.
func sessionTimes(s *domain.Session, now int64) (updated, created int64) {
	updated = s.UpdatedAt
	if updated <= 0 {
		updated = now
	}
	created = s.CreatedAt
	if created <= 0 || created > updated {
		created = updated
	}
	return updated, created
}

func nullIf(s string, ok bool) any {
	if s == "" || !ok {
		return nil
	}
	return s
}

func nullInt(n int64) any {
	if n <= 0 {
		return nil
	}
	return n
}
