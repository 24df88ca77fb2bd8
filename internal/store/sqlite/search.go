package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/redact"
	"github.com/switchboard-go/switchboard/internal/store/msgbody"
	"github.com/switchboard-go/switchboard/internal/store/rowcodec"
)

// Schema version 4 adds the full-text index of sessions_search.
//
// messages_fts is an FTS5 table whose rowid is the rowid of the message
// it indexes and whose one column holds redact.SearchText of the message:
// the masked text sessions_history shows, never the raw body, so neither a
// match nor a snippet reveals a credential history would mask. The table
// is contentless (it keeps the index, not a copy of the text): every
// page a commit writes costs a chat turn time, and snippets are cut in Go from the message itself (snippet.go),
// through the same redact.SearchText. Rows were written
// by AppendMessages in the same transaction as their message, so search was
// never stale, and removed with their session in DeleteSession. A message
// with no text (a tool call only) has no row. Since schema version 7 the
// rows are written by a catch-up transaction instead (searchindex.go):
// search indexes every message it would otherwise miss before it reads.
//
// A second column, scope, holds one token naming the message's session
// key (keyToken). A requester who may read only its own session or its
// spawn tree searches with those tokens as well as the words, so FTS5
// intersects the words' doclists with the sessions' short ones instead of
// walking every match in the store (a common word matches most of a
// million messages; the session holds a hundred). The SQL still filters by
// key, so a token collision can never widen a result.
//
// The rowid link needs the rowids of messages to stay put: SQLite only
// renumbers them on VACUUM of a table without an INTEGER PRIMARY KEY.
// Since schema version 8 messages has one (mid, narrow.go), so a VACUUM
// keeps them; before, the store never ran VACUUM.
const schemaV4 = `
CREATE VIRTUAL TABLE messages_fts USING fts5(text, scope, content = '', contentless_delete = 1,
	tokenize = 'unicode61 remove_diacritics 2');
-- No incremental merging on every commit: it rewrote index pages on each
-- chat turn's small commits. Segments are merged when 16 pile up on a
-- level (crisismerge), which bounds the segments a query reads.
INSERT INTO messages_fts (messages_fts, rank) VALUES ('automerge', 0);
`

// migrateV4 creates the index and back-fills it from every stored
// message, so an upgraded store is searchable at once.
func migrateV4(ctx context.Context, conn *sql.Conn) error {
	return createIndex(ctx, conn, `SELECT rowid, session_key, body FROM messages`)
}

// migrateV10 rebuilds the index so every row's scope names its agent too
// (scopeOf); since version 8 a message row reaches its session key
// through its generation.
func migrateV10(ctx context.Context, conn *sql.Conn) error {
	if _, err := conn.ExecContext(ctx, `DROP TABLE messages_fts`); err != nil {
		return err
	}
	return createIndex(ctx, conn, `SELECT m.rowid, g.session_key, m.body FROM messages m JOIN message_gens g ON g.gen = m.gen`)
}

// createIndex creates the index and fills it from the (rowid, session
// key, body) rows of messages.
func createIndex(ctx context.Context, conn *sql.Conn, messages string) error {
	if _, err := conn.ExecContext(ctx, schemaV4); err != nil {
		return err
	}
	ins, err := conn.PrepareContext(ctx, `INSERT INTO messages_fts (rowid, text, scope) VALUES (?, ?, ?)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	rows, err := conn.QueryContext(ctx, messages)
	if err != nil {
		return err
	}
	defer rows.Close()
	red := redact.New()
	for rows.Next() {
		var rowid int64
		var key string
		var body []byte
		if err := rows.Scan(&rowid, &key, &body); err != nil {
			return err
		}
		var m domain.Message
		if _, err := decodeBody(msgbody.Default(), nil, body, &m); err != nil {
			return fmt.Errorf("message rowid %d: %w", rowid, err)
		}
		text := red.SearchText(m)
		if text == "" {
			continue
		}
		if _, err := ins.ExecContext(ctx, rowid, text, scopeOf(key)); err != nil {
			return fmt.Errorf("index message rowid %d: %w", rowid, err)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return rows.Close()
}

// SearchMessages returns the current-generation messages whose indexed
// text holds every word of q, newest first, inside q's filters, examining
// at most q.Scan index matches (SearchPage.Next says where it stopped).
func (s *Store) SearchMessages(ctx context.Context, q domain.MessageSearch) (domain.SearchPage, error) {
	page := domain.SearchPage{Hits: []domain.SearchHit{}}
	if len(q.Words) == 0 {
		return page, domain.Invalid("search messages: at least one word is required")
	}
	if q.Limit <= 0 {
		return page, domain.Invalid("search messages: limit must be > 0 (got %d)", q.Limit)
	}
	if q.Before < 0 {
		return page, domain.Invalid("search messages: cursor must be >= 0 (got %d)", q.Before)
	}
	if q.Scan < 0 {
		return page, domain.Invalid("search messages: scan must be >= 0 (got %d)", q.Scan)
	}
	if q.Keys != nil && len(q.Keys) == 0 {
		return page, nil
	}
	if s.closed.Load() {
		return page, fmt.Errorf("search messages: %w", domain.ErrClosed)
	}
	if err := s.indexTail(ctx); err != nil {
		return page, fmt.Errorf("search messages: %w", err)
	}
	scope, err := s.scopeTokens(ctx, q)
	if err != nil {
		return page, s.readErr("search messages", err)
	}
	query, args := buildSearch(q, scope)
	rows, err := s.queryR(ctx, query, args...)
	if err != nil {
		return page, s.readErr("search messages", err)
	}
	defer rows.Close()
	var scratch []byte
	for rows.Next() {
		var h domain.SearchHit
		var ok bool
		var body sql.RawBytes
		if err := rows.Scan(&h.Position, &ok, &h.SessionKey, &h.SessionID, textCol{&h.MessageID}, &h.Seq, roleCol{&h.Role}, &h.Timestamp, &body); err != nil {
			return page, s.readErr("search messages", err)
		}
		page.Scanned++
		if ok {
			var m domain.Message
			if scratch, err = decodeBody(s.codec, scratch, body, &m); err != nil {
				return page, fmt.Errorf("search messages: message %s of %q: %w", h.MessageID, h.SessionKey, err)
			}
			h.Snippet = rowcodec.Snippet(s.searchRedactor.SearchText(m), q.Words)
			page.Hits = append(page.Hits, h)
			if len(page.Hits) == q.Limit {
				break
			}
		}
		if page.Scanned == q.Scan {
			page.Next = h.Position
			break
		}
	}
	if err := rows.Err(); err != nil {
		return page, s.readErr("search messages", err)
	}
	return page, nil
}

// scopeTokens returns the scope tokens a search of q names, so the index
// yields only the messages of the sessions q may read: the tokens of
// q.Keys, else of the tree under q.TreeRoot, else of the sessions of
// q.AgentIDs — or, for agents with more sessions than scopeTokensMax,
// the agents' own tokens. Nil when the scope is wider than
// scopeTokensMax tokens (the SQL filters alone, within q.Scan).
func (s *Store) scopeTokens(ctx context.Context, q domain.MessageSearch) ([]string, error) {
	var keys []string
	var err error
	switch {
	case q.Keys != nil:
		if len(q.Keys) <= scopeTokensMax {
			keys = q.Keys
		}
	case q.TreeRoot != "":
		keys, err = s.treeKeys(ctx, q.TreeRoot)
	case len(q.AgentIDs) > 0:
		if keys, err = s.agentKeys(ctx, q.AgentIDs); err == nil && keys == nil && len(q.AgentIDs) <= scopeTokensMax {
			tokens := make([]string, len(q.AgentIDs))
			for i, a := range q.AgentIDs {
				tokens[i] = agentToken(a)
			}
			return tokens, nil
		}
	}
	if err != nil || keys == nil {
		return nil, err
	}
	tokens := make([]string, len(keys))
	for i, k := range keys {
		tokens[i] = keyToken(k)
	}
	return tokens, nil
}

// keyToken is the scope token of a session key: "k" and the FNV-1a hash
// of the key in hex, one token for the unicode61 tokenizer.
func keyToken(key string) string {
	h := fnv.New64a()
	h.Write([]byte(key))
	return fmt.Sprintf("k%016x", h.Sum64())
}

// agentToken is the scope token of an agent id: "a" and the FNV-1a hash
// of the id in hex.
func agentToken(agentID string) string {
	h := fnv.New64a()
	h.Write([]byte(agentID))
	return fmt.Sprintf("a%016x", h.Sum64())
}

// scopeOf is the scope column of a message of session key: its key's
// token and its agent's (a canonical key agent:<id>:… names its agent,
// as the session row's agent_id does).
func scopeOf(key string) string {
	rest, ok := strings.CutPrefix(key, "agent:")
	if !ok {
		return keyToken(key)
	}
	agent, _, _ := strings.Cut(rest, ":")
	return keyToken(key) + " " + agentToken(agent)
}

// scopeTokensMax is the most session keys a search names by token; a
// larger tree is filtered by SQL alone.
const scopeTokensMax = 64

// treeKeys returns the keys of the tree under root, or nil when it has
// more than scopeTokensMax.
func (s *Store) treeKeys(ctx context.Context, root string) ([]string, error) {
	rows, err := s.queryR(ctx, `WITH RECURSIVE tree(key) AS (
	SELECT ? UNION SELECT s.key FROM sessions s JOIN tree t ON s.spawned_by = t.key
) SELECT key FROM tree LIMIT +?`, root, scopeTokensMax+1)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var keys []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(keys) > scopeTokensMax {
		return nil, nil
	}
	return keys, nil
}

// agentKeys returns the keys of the sessions of agents, or nil when they
// have more than scopeTokensMax.
func (s *Store) agentKeys(ctx context.Context, agents []string) ([]string, error) {
	args := append(anys(agents), scopeTokensMax+1)
	rows, err := s.queryR(ctx, `SELECT key FROM sessions WHERE agent_id IN (`+placeholders(len(agents))+`)`+limitParam, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	keys := []string{}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(keys) > scopeTokensMax {
		return nil, nil
	}
	return keys, nil
}

// ftsQuery is the FTS5 query of words in the text column: each a quoted
// string (so no word is read as an operator), all required (FTS5 ANDs
// juxtaposed terms); with scope tokens, also one of them.
func ftsQuery(words, scope []string) string {
	var b strings.Builder
	b.WriteString("text : (")
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteByte('"')
		b.WriteString(strings.ReplaceAll(w, `"`, `""`))
		b.WriteByte('"')
	}
	b.WriteByte(')')
	if len(scope) > 0 && len(scope) <= scopeTokensMax {
		b.WriteString(" AND scope : (")
		for i, t := range scope {
			if i > 0 {
				b.WriteString(" OR ")
			}
			b.WriteString(t)
		}
		b.WriteByte(')')
	}
	return b.String()
}

// buildSearch is the SQL of q. The FTS5 table drives the scan in rowid
// order, newest first, naming the scope's tokens when there are keys, so
// the index yields only their messages; each match is joined to its
// message and session row by primary key, and the filters are a column
// (ok) rather than a WHERE, so the reader counts every match it examines
// and stops at q.Scan. SQLite steps lazily: rows not read are not
// computed.
func buildSearch(q domain.MessageSearch, scope []string) (string, []any) {
	var b strings.Builder
	var args []any
	if q.TreeRoot != "" {
		b.WriteString(`WITH RECURSIVE tree(key) AS (
	SELECT ? UNION SELECT s.key FROM sessions s JOIN tree t ON s.spawned_by = t.key
) `)
		args = append(args, q.TreeRoot)
	}
	var ok strings.Builder
	var okArgs []any
	ok.WriteString(`s.key IS NOT NULL`)
	add := func(cond string, a ...any) {
		ok.WriteString(" AND " + cond)
		okArgs = append(okArgs, a...)
	}
	if q.Since > 0 {
		add(`m.timestamp >= ?`, q.Since)
	}
	if q.TreeRoot != "" {
		add(`g.session_key IN (SELECT key FROM tree)`)
	}
	if len(q.Keys) > 0 {
		add(`g.session_key IN (`+placeholders(len(q.Keys))+`)`, anys(q.Keys)...)
	}
	if len(q.AgentIDs) > 0 {
		add(`s.agent_id IN (`+placeholders(len(q.AgentIDs))+`)`, anys(q.AgentIDs)...)
	}
	if len(q.Kinds) > 0 {
		add(`s.kind IN (`+placeholders(len(q.Kinds))+`)`, anys(q.Kinds)...)
	}
	cond := "(" + ok.String() + ")"
	b.WriteString(`SELECT f.rowid, ` + cond + `, g.session_key, g.session_id, m.id, m.seq, m.role, m.timestamp,
	CASE WHEN ` + cond + ` THEN m.body END
FROM messages_fts f
JOIN messages m ON m.rowid = f.rowid
JOIN message_gens g ON g.gen = m.gen
LEFT JOIN sessions s ON s.key = g.session_key AND s.session_id = g.session_id
WHERE messages_fts MATCH ?`)
	args = append(args, okArgs...)
	args = append(args, okArgs...)
	args = append(args, ftsQuery(q.Words, scope))
	if q.Before > 0 {
		b.WriteString("\n\tAND f.rowid < ?")
		args = append(args, q.Before)
	}
	b.WriteString("\nORDER BY f.rowid DESC")
	return b.String(), args
}
