package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/switchboard-go/switchboard/internal/domain"
	masking "github.com/switchboard-go/switchboard/internal/redact"
	"github.com/switchboard-go/switchboard/internal/store/rowcodec"
)

// Schema version 2 is the search index of sessions_search (the SQLite
// store's v4): each message gets tsv, a tsvector of redact.SearchText (the
// masked text history shows) under the 'simple' configuration (lower case,
// no stemming, as the SQLite store's tokenizer), written by the same
// INSERT that stores the message, and pos, an increasing number that
// orders hits newest first and is the cursor. Rows stored before version 2
// have tsv NULL until backfillSearch indexes them when the store opens.
const schemaV2 = `
ALTER TABLE messages ADD COLUMN tsv tsvector;
ALTER TABLE messages ADD COLUMN pos BIGINT GENERATED ALWAYS AS IDENTITY;
CREATE INDEX messages_tsv ON messages USING GIN (tsv);
CREATE INDEX messages_pos ON messages (pos);
`

// backfillBatch is how many messages one back-fill statement indexes.
const backfillBatch = 1000

// backfillSearch indexes the messages stored before schema version 2
// (tsv NULL), in batches, so an upgraded store is searchable at once.
func (s *Store) backfillSearch(ctx context.Context) error {
	red := masking.New()
	for {
		rows, err := s.pool.Query(ctx, `SELECT session_key, seq, body FROM messages WHERE tsv IS NULL LIMIT $1`, backfillBatch)
		if err != nil {
			return fmt.Errorf("index stored messages: %w", err)
		}
		var keys, texts []string
		var seqs []int64
		for rows.Next() {
			var key string
			var seq int64
			var body []byte
			if err := rows.Scan(&key, &seq, &body); err != nil {
				rows.Close()
				return fmt.Errorf("index stored messages: %w", err)
			}
			var m domain.Message
			if err := json.Unmarshal(body, &m); err != nil {
				rows.Close()
				return fmt.Errorf("index stored messages: %q seq %d: %w", key, seq, err)
			}
			keys, seqs, texts = append(keys, key), append(seqs, seq), append(texts, pgText(red.SearchText(m)))
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("index stored messages: %w", err)
		}
		if len(keys) == 0 {
			return nil
		}
		_, err = s.pool.Exec(ctx, `UPDATE messages m SET tsv = to_tsvector('simple', u.text)
			FROM unnest($1::text[], $2::bigint[], $3::text[]) AS u(key, seq, text)
			WHERE m.session_key = u.key AND m.seq = u.seq`, keys, seqs, texts)
		if err != nil {
			return fmt.Errorf("index stored messages: %w", err)
		}
	}
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
	query, vals := buildSearch(q)
	// Read-only, and without parallel workers: the newest-first walk is a
	// few hundred rows, and starting workers for it costs more than the
	// walk, most of all on a busy machine.
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL max_parallel_workers_per_gather = 0`); err != nil {
			return err
		}
		var err error
		page, err = s.scanHits(ctx, tx, query, vals, q)
		return err
	})
	if err != nil {
		return page, s.readErr("search messages", err)
	}
	return page, nil
}

// buildSearch is the SQL of q. The scope (keys, a tree, agents) is a
// predicate on the message's session key, so the matches of sessions
// outside it are never rows of the scan; the other filters are a column
// (ok), so every match examined is numbered (rn) and the scan stops at
// q.Scan. The outer query returns the hits and the last row examined,
// which tells how far the scan went and whether more matches follow.
//
// plainto_tsquery ANDs the words and reads no operators in them. The
// session row is joined LEFT, so the planner estimates no row lost to
// it: for a common word it walks messages_pos newest first and stops at
// the limit, for a rare one it takes the GIN index.
func buildSearch(q domain.MessageSearch) (string, []any) {
	var b strings.Builder
	var a args
	if q.TreeRoot != "" {
		b.WriteString(`WITH RECURSIVE tree(key) AS (
	SELECT ` + a.add(q.TreeRoot) + `::text COLLATE "C" UNION SELECT s.key FROM sessions s JOIN tree t ON s.spawned_by = t.key
) `)
	}
	ok := `s.key IS NOT NULL`
	if q.Since > 0 {
		ok += ` AND m.timestamp >= ` + a.add(q.Since)
	}
	if len(q.Kinds) > 0 {
		ok += ` AND s.kind = ANY(` + a.add(q.Kinds) + `::text[])`
	}
	if len(q.AgentIDs) > 0 && (q.Keys != nil || q.TreeRoot != "") {
		ok += ` AND s.agent_id = ANY(` + a.add(q.AgentIDs) + `::text[])`
	}
	b.WriteString(`SELECT pos, ok, session_key, session_id, id, seq, role, timestamp, body, rn, last FROM (
	SELECT m.pos, (` + ok + `) AS ok, m.session_key, m.session_id, m.id, m.seq, m.role, m.timestamp, m.body,
		row_number() OVER w AS rn, lead(m.pos) OVER w IS NULL AS last
	FROM messages m LEFT JOIN sessions s ON s.key = m.session_key AND s.session_id = m.session_id
	WHERE m.tsv @@ plainto_tsquery('simple', ` + a.add(strings.Join(q.Words, " ")) + `)`)
	if q.Before > 0 {
		b.WriteString(` AND m.pos < ` + a.add(q.Before))
	}
	switch {
	case q.Keys != nil:
		b.WriteString(` AND m.session_key = ANY(` + a.add(q.Keys) + `::text[])`)
	case q.TreeRoot != "":
		b.WriteString(` AND m.session_key IN (SELECT key FROM tree)`)
	case len(q.AgentIDs) > 0:
		b.WriteString(` AND m.session_key IN (SELECT key FROM sessions WHERE agent_id = ANY(` + a.add(q.AgentIDs) + `::text[]))`)
	}
	b.WriteString(`
	WINDOW w AS (ORDER BY m.pos DESC)
	ORDER BY m.pos DESC`)
	if q.Scan > 0 {
		b.WriteString(` LIMIT ` + a.add(q.Scan))
	}
	b.WriteString(`
) c WHERE c.ok OR c.last`)
	if q.Scan > 0 {
		b.WriteString(` OR c.rn = ` + a.add(q.Scan))
	}
	b.WriteString(`
ORDER BY c.pos DESC LIMIT ` + a.add(q.Limit+1))
	return b.String(), a.vals
}

// scanHits runs the search query on tx and reads its page.
func (s *Store) scanHits(ctx context.Context, tx pgx.Tx, query string, vals []any, q domain.MessageSearch) (domain.SearchPage, error) {
	page := domain.SearchPage{Hits: []domain.SearchHit{}}
	rows, err := tx.Query(ctx, query, customPlan(vals)...)
	if err != nil {
		return page, err
	}
	defer rows.Close()
	red := masking.New()
	for rows.Next() {
		var h domain.SearchHit
		var ok, last bool
		var rn int64
		var body []byte
		if err := rows.Scan(&h.Position, &ok, &h.SessionKey, &h.SessionID, &h.MessageID, &h.Seq, &h.Role, &h.Timestamp, &body, &rn, &last); err != nil {
			return page, err
		}
		page.Scanned = int(rn)
		if ok {
			var m domain.Message
			if err := json.Unmarshal(body, &m); err != nil {
				return page, fmt.Errorf("message %s of %q: %w", h.MessageID, h.SessionKey, err)
			}
			h.Snippet = rowcodec.Snippet(red.SearchText(m), q.Words)
			page.Hits = append(page.Hits, h)
			if len(page.Hits) == q.Limit {
				break
			}
		}
		if page.Scanned == q.Scan && !last {
			page.Next = h.Position
			break
		}
	}
	return page, rows.Err()
}

// seqOfID returns the seq of the message with entry id in the generation
// sid of key (the current one when sid is "").
func (s *Store) seqOfID(ctx context.Context, key, sid, id string) (int64, error) {
	var seq int64
	err := s.pool.QueryRow(ctx, `SELECT seq FROM messages WHERE session_key = $1 AND id = $2
		AND session_id = COALESCE(NULLIF($3, ''), (SELECT session_id FROM sessions WHERE key = $1)) LIMIT 1`, key, id, sid).Scan(&seq)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, fmt.Errorf("read messages of %q: no message with id %q: %w", key, id, domain.ErrNotFound)
	}
	if err != nil {
		return 0, s.readErr("read messages", err)
	}
	return seq, nil
}
