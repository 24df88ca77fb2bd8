package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/rowcodec"
)

// seqOfID returns the seq of the message with entry id in the generation
// sid of key (the current one when sid is ""), for paging history by
// message id. Messages have no index on id (schema v2 dropped it), so the
// id's own scheme finds the seq: the generation's newest message gives
// the salt, and the salt turns the id back into its seq (entryid.go); one
// row read checks it. Ids of another scheme (a legacy generation's random
// ids) fall back to a scan of the key's rows.
func (s *Store) seqOfID(ctx context.Context, key, sid, id string) (int64, error) {
	notFound := fmt.Errorf("read messages of %q: no message with id %q: %w", key, id, domain.ErrNotFound)
	if sid == "" {
		err := s.pointRowR(ctx, `SELECT session_id FROM sessions WHERE key = ?`, key).Scan(&sid)
		if errors.Is(err, sql.ErrNoRows) {
			return 0, notFound
		}
		if err != nil {
			return 0, s.readErr("read messages", err)
		}
	}
	var lastSeq int64
	var lastID string
	err := s.pointRowR(ctx, lastOfGenSQL, key, sid).Scan(&lastSeq, textCol{&lastID})
	if errors.Is(err, sql.ErrNoRows) {
		return 0, notFound
	}
	if err != nil {
		return 0, s.readErr("read messages", err)
	}
	if salt, ok := rowcodec.EntrySalt(lastID, lastSeq); ok {
		if v, ok := rowcodec.ParseHex32(id); ok {
			seq := int64(rowcodec.Unmix32(v ^ salt))
			var gotID string
			err := s.pointRowR(ctx, `SELECT m.id FROM message_gens AS g JOIN messages AS m ON m.gen = g.gen
				WHERE g.session_key = ? AND g.session_id = ? AND m.seq = ?`, key, sid, seq).Scan(textCol{&gotID})
			switch {
			case err == nil && gotID == id:
				return seq, nil
			case err != nil && !errors.Is(err, sql.ErrNoRows):
				return 0, s.readErr("read messages", err)
			}
		}
	}
	var seq int64
	err = s.queryRowR(ctx, `SELECT m.seq FROM message_gens AS g JOIN messages AS m ON m.gen = g.gen
		WHERE g.session_key = ? AND g.session_id = ? AND m.id = ? LIMIT 1`, key, sid, packedArg(id)).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, notFound
	}
	if err != nil {
		return 0, s.readErr("read messages", err)
	}
	return seq, nil
}
