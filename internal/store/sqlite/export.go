package sqlite

import "github.com/switchboard-go/switchboard/internal/domain"

// The row formats below are shared with the PostgreSQL store
// (internal/store/postgres), so both backends store the same bytes for a
// session row and a message body, and a field added to domain.Session or
// domain.Message reaches both at once.

// EncodeSessionRow appends the encoding of s (sessionrow.go) to b.
func EncodeSessionRow(b []byte, s *domain.Session) []byte { return appendSessionRow(b, s) }

// DecodeSessionRow decodes a row written by EncodeSessionRow into s.
func DecodeSessionRow(row string, s *domain.Session) error { return decodeSessionRow(row, s) }

// SessionSearchText is what SessionQuery.Search matches for s.
func SessionSearchText(s *domain.Session) string { return searchText(s) }

// AppendMessageJSON appends m's raw transcript JSON, the message body both
// stores keep, to b.
func AppendMessageJSON(b []byte, m *domain.Message) ([]byte, error) { return appendMessageJSON(b, m) }

// EntryID returns the transcript entry id of the message at seq in a
// generation with salt (entryid.go).
func EntryID(seq int64, salt uint32) string { return entryID(seq, salt) }

// EntrySalt recovers the salt of a generation from one of its ids and
// that message's seq; ok is false when id is not 8 hex digits.
func EntrySalt(id string, seq int64) (salt uint32, ok bool) { return saltOf(id, seq) }

// SortSessions puts rows in list order (UpdatedAt descending, Key ascending).
func SortSessions(rows []domain.Session) { sortSessions(rows) }
