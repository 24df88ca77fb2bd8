// Package rowcodec holds what both stores write the same way, so that
// neither store imports the other: the session row's encoding and search
// text, a message's transcript JSON (its stored body), transcript entry
// ids, list order and search snippets. Both backends store the same bytes
// for a session row and a message body, and a field added to
// domain.Session or domain.Message reaches both at once.
package rowcodec

import "github.com/switchboard-go/switchboard/internal/domain"

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

// AppendJSONString appends s as a JSON string to b, escaped as
// encoding/json escapes it.
func AppendJSONString(b []byte, s string) []byte { return appendJSONString(b, s) }

// ParseHex32 parses an entry id's 8 lower-case hex digits.
func ParseHex32(s string) (uint32, bool) { return parseHex32(s) }

// Unmix32 inverts the bijection entry ids are made with.
func Unmix32(x uint32) uint32 { return unmix32(x) }
