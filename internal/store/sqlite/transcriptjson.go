package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"sync/atomic"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// transcriptArenaHint is the size of the messages ReadTranscriptJSON read
// last, up to maxArenaHint. Transcripts read one after another are mostly
// of a size, so the next one's arena starts at that size and a quarter
// more instead of doubling its way up from nothing, which allocated
// several times the transcript's size and made the garbage collector run
// as often. The bound keeps one long transcript from making the next
// short ones hold much more than they need.
var transcriptArenaHint atomic.Int64

const maxArenaHint = 1 << 20

// ReadTranscriptJSON implements domain.TranscriptJSONReader: the rows
// ReadMessages reads for MessageQuery{SessionID: sessionID}, with each
// body decompressed and not decoded.
func (s *Store) ReadTranscriptJSON(ctx context.Context, key, sessionID string) ([]domain.TranscriptMessage, error) {
	if s.closed.Load() {
		return nil, fmt.Errorf("read transcript: %w", domain.ErrClosed)
	}
	rows, err := s.queryR(ctx, `SELECT m.id, m.parent_id, m.timestamp, m.body
FROM message_gens AS g JOIN messages AS m ON m.gen = g.gen WHERE g.session_key = ? AND g.session_id = ? ORDER BY m.seq`, key, sessionID)
	if err != nil {
		return nil, s.readErr("read transcript", err)
	}
	defer rows.Close()
	var (
		out        = []domain.TranscriptMessage{}
		ends       []int
		hint       = transcriptArenaHint.Load()
		arena      = make([]byte, 0, hint+hint/4) // every message's JSON, one after the other
		id, parent string
		ts         int64
		body       sql.RawBytes
	)
	for rows.Next() {
		if err := rows.Scan(textCol{&id}, textCol{&parent}, &ts, &body); err != nil {
			return nil, s.readErr("read transcript", err)
		}
		if arena, err = s.codec.Decode(arena, body); err != nil {
			return nil, fmt.Errorf("read transcript of %q: message %s: %w", key, id, err)
		}
		out = append(out, domain.TranscriptMessage{ID: id, ParentID: parent, Timestamp: ts})
		ends = append(ends, len(arena))
	}
	if err := rows.Err(); err != nil {
		return nil, s.readErr("read transcript", err)
	}
	transcriptArenaHint.Store(int64(min(len(arena), maxArenaHint)))
	start := 0
	for i, end := range ends {
		out[i].JSON = arena[start:end:end]
		start = end
	}
	return out, nil
}
