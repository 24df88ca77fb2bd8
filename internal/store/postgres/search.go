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
// text holds every word of q, newest first, inside q's filters.
func (s *Store) SearchMessages(ctx context.Context, q domain.MessageSearch) ([]domain.SearchHit, error) {
	if len(q.Words) == 0 {
		return nil, domain.Invalid("search messages: at least one word is required")
	}
	if q.Limit <= 0 {
		return nil, domain.Invalid("search messages: limit must be > 0 (got %d)", q.Limit)
	}
	if q.Before < 0 {
		return nil, domain.Invalid("search messages: cursor must be >= 0 (got %d)", q.Before)
	}
	if q.Keys != nil && len(q.Keys) == 0 {
		return []domain.SearchHit{}, nil
	}
	if s.closed.Load() {
		return nil, fmt.Errorf("search messages: %w", domain.ErrClosed)
	}
	var b strings.Builder
	var a args
	if q.TreeRoot != "" {
		b.WriteString(`WITH RECURSIVE tree(key) AS (
	SELECT ` + a.add(q.TreeRoot) + `::text COLLATE "C" UNION SELECT s.key FROM sessions s JOIN tree t ON s.spawned_by = t.key
) `)
	}
	// plainto_tsquery ANDs the words and reads no operators in them.
	//
	// Unscoped (the operator, or by agent or kind), the session row is
	// checked by a subquery the planner cannot turn into a join (OFFSET
	// 0), not by a JOIN: it estimates the two-column join (key,
	// session_id) as keeping almost no message, and so, sure the LIMIT
	// would never be reached, read every message of a common word through
	// the GIN index and sorted them (1 s at 1,000,000 messages).
	// Estimating the subquery as keeping half, it walks messages_pos
	// newest first for common words and stops at the limit, and still
	// takes the GIN index for rare ones. Scoped to sessions (keys, a
	// tree), the JOIN stays: the planner starts from those sessions'
	// messages, where the subquery made it AND them with the GIN scan of
	// a common word, which is slower.
	scoped := len(q.Keys) > 0 || q.TreeRoot != ""
	b.WriteString(`SELECT m.session_key, m.session_id, m.id, m.seq, m.role, m.timestamp, m.body, m.pos
FROM messages m`)
	if scoped {
		b.WriteString(` JOIN sessions s ON s.key = m.session_key AND s.session_id = m.session_id`)
	}
	b.WriteString(`
WHERE m.tsv @@ plainto_tsquery('simple', ` + a.add(strings.Join(q.Words, " ")) + `)`)
	if q.Before > 0 {
		b.WriteString(` AND m.pos < ` + a.add(q.Before))
	}
	if q.Since > 0 {
		b.WriteString(` AND m.timestamp >= ` + a.add(q.Since))
	}
	if q.TreeRoot != "" {
		b.WriteString(` AND m.session_key IN (SELECT key FROM tree)`)
	}
	if len(q.Keys) > 0 {
		b.WriteString(` AND m.session_key = ANY(` + a.add(q.Keys) + `::text[])`)
	}
	if !scoped {
		b.WriteString(`
	AND EXISTS (SELECT 1 FROM sessions s WHERE s.key = m.session_key AND s.session_id = m.session_id`)
	}
	if len(q.AgentIDs) > 0 {
		b.WriteString(` AND s.agent_id = ANY(` + a.add(q.AgentIDs) + `::text[])`)
	}
	if len(q.Kinds) > 0 {
		b.WriteString(` AND s.kind = ANY(` + a.add(q.Kinds) + `::text[])`)
	}
	if !scoped {
		b.WriteString(` OFFSET 0)`)
	}
	b.WriteString(`
ORDER BY m.pos DESC LIMIT ` + a.add(q.Limit))
	var out []domain.SearchHit
	// Read-only, and without parallel workers: the newest-first walk is a
	// few hundred rows, and starting workers for it costs more than the
	// walk, most of all on a busy machine.
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL max_parallel_workers_per_gather = 0`); err != nil {
			return err
		}
		var err error
		out, err = s.scanHits(ctx, tx, b.String(), a.vals, q.Words)
		return err
	})
	if err != nil {
		return nil, s.readErr("search messages", err)
	}
	return out, nil
}

// scanHits runs the search query on tx and reads its hits.
func (s *Store) scanHits(ctx context.Context, tx pgx.Tx, query string, vals []any, words []string) ([]domain.SearchHit, error) {
	rows, err := tx.Query(ctx, query, customPlan(vals)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	red := masking.New()
	out := []domain.SearchHit{}
	for rows.Next() {
		var h domain.SearchHit
		var body []byte
		if err := rows.Scan(&h.SessionKey, &h.SessionID, &h.MessageID, &h.Seq, &h.Role, &h.Timestamp, &body, &h.Position); err != nil {
			return nil, err
		}
		var m domain.Message
		if err := json.Unmarshal(body, &m); err != nil {
			return nil, fmt.Errorf("message %s of %q: %w", h.MessageID, h.SessionKey, err)
		}
		h.Snippet = rowcodec.Snippet(red.SearchText(m), words)
		out = append(out, h)
	}
	return out, rows.Err()
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
