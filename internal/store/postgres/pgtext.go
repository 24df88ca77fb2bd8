package postgres

import "strings"

// PostgreSQL's text (and jsonb) cannot hold U+0000: binding a string with a
// NUL byte fails the whole statement ("invalid byte sequence for encoding
// UTF8: 0x00"). User input with NUL is refused at the surfaces, but a model
// reply, a tool result or an imported transcript may still carry one, and
// a run must not fail (nor an import abort) for it. Every raw text column
// that can hold such text is bound through pgText, which puts U+FFFD (the
// replacement character) in each NUL's place. This is the one way this
// store differs from the SQLite store, which keeps the bytes
// (docs/storage.md). Bytea columns (session rows) and JSON bodies, whose
// encoder writes NUL as the escape \u0000 in a text column, keep the exact
// bytes and need no replacement.

// nulReplacement stands in for U+0000 in text columns.
const nulReplacement = "\uFFFD"

// pgText returns s with every U+0000 replaced by U+FFFD; s itself when it
// has none, which is almost always, so the common case does not allocate.
func pgText(s string) string {
	if strings.IndexByte(s, 0) < 0 {
		return s
	}
	return strings.ReplaceAll(s, "\x00", nulReplacement)
}
