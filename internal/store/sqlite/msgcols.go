package sqlite

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// Schema version 8 stores a message row's short text columns compactly
// (schemaV8). An id, parent id or run id is stored
//
//   - as a 4-byte BLOB when it is 8 lowercase hex digits (entry ids,
//     entryid.go, and OpenClaw's own),
//   - as a 16-byte BLOB when it is a UUID in canonical lowercase form
//     (run ids),
//   - as TEXT otherwise (""), so any string round-trips.
//
// A role is stored as a small INTEGER when it is one of roleCodes, as
// TEXT otherwise. The role column has no type affinity, so TEXT that
// looks like a number stays TEXT. The same forms are computed in SQL by
// the migration (packedTextSQL, roleSQL); TestPackedColumnsMatchSQL holds
// the two together.

// roleCodes are the roles stored as their index.
var roleCodes = [...]string{domain.RoleUser, domain.RoleAssistant, domain.RoleToolResult}

// roleArg is the stored form of role r.
func roleArg(r string) any {
	for i, c := range roleCodes {
		if r == c {
			return int64(i)
		}
	}
	return r
}

// roleArgs is roleArg of each of roles.
func roleArgs(roles []string) []any {
	out := make([]any, len(roles))
	for i, r := range roles {
		out[i] = roleArg(r)
	}
	return out
}

// roleSQL is roleArg in SQL, of the column or expression col.
func roleSQL(col string) string {
	var b strings.Builder
	b.WriteString("CASE " + col)
	for i, c := range roleCodes {
		fmt.Fprintf(&b, " WHEN '%s' THEN %d", c, i)
	}
	b.WriteString(" ELSE " + col + " END")
	return b.String()
}

// packedLen is how many bytes packText stores s in; 0 means s is kept as
// TEXT.
func packedLen(s string) int {
	switch len(s) {
	case 8:
		if isLowerHex(s) {
			return 4
		}
	case 36:
		if s[8] == '-' && s[13] == '-' && s[18] == '-' && s[23] == '-' &&
			isLowerHex(s[:8]) && isLowerHex(s[9:13]) && isLowerHex(s[14:18]) && isLowerHex(s[19:23]) && isLowerHex(s[24:]) {
			return 16
		}
	}
	return 0
}

// unhex is the value of the lowercase hex digit c.
func unhex(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return c - 'a' + 10
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// packText appends the stored form of s to arena and returns the value
// to bind: a BLOB (a slice of arena) or s itself. Earlier values stay
// valid when arena grows: they keep the old array.
func packText(arena []byte, s string) ([]byte, any) {
	n := packedLen(s)
	if n == 0 {
		return arena, s
	}
	start := len(arena)
	arena = append(arena, make([]byte, n)...)
	dst := arena[start : start+n : start+n]
	// packedLen checked that s is hex digits (and hyphens, for a UUID).
	for i, j := 0, 0; j < n; i += 2 {
		if s[i] == '-' {
			i++
		}
		dst[j] = unhex(s[i])<<4 | unhex(s[i+1])
		j++
	}
	return arena, dst
}

// packedArg is packText without an arena.
func packedArg(s string) any {
	_, v := packText(nil, s)
	return v
}

// unpackText is the string that the stored value v (TEXT or BLOB) holds.
func unpackText(v []byte) (string, error) {
	switch len(v) {
	case 4:
		return hex.EncodeToString(v), nil
	case 16:
		return uuid.UUID(v).String(), nil
	}
	return "", fmt.Errorf("corrupt packed id: %d bytes", len(v))
}

// packedTextSQL is packText in SQL, of the TEXT column col.
func packedTextSQL(col string) string {
	h := "[0-9a-f]"
	uuidGlob := strings.Repeat(h, 8) + "-" + strings.Repeat(h, 4) + "-" + strings.Repeat(h, 4) + "-" + strings.Repeat(h, 4) + "-" + strings.Repeat(h, 12)
	return fmt.Sprintf(`CASE WHEN length(%[1]s) = 8 AND %[1]s NOT GLOB '*[^0-9a-f]*' THEN unhex(%[1]s)
	WHEN %[1]s GLOB '%[2]s' THEN unhex(replace(%[1]s, '-', '')) ELSE %[1]s END`, col, uuidGlob)
}

// unpackedTextSQL is unpackText in SQL, of the packed column col.
func unpackedTextSQL(col string) string {
	return fmt.Sprintf(`CASE WHEN typeof(%[1]s) != 'blob' THEN %[1]s
	WHEN length(%[1]s) = 4 THEN lower(hex(%[1]s))
	ELSE lower(substr(hex(%[1]s), 1, 8) || '-' || substr(hex(%[1]s), 9, 4) || '-' || substr(hex(%[1]s), 13, 4) || '-' ||
		substr(hex(%[1]s), 17, 4) || '-' || substr(hex(%[1]s), 21)) END`, col)
}

// textCol scans a packed id, parent id or run id column into *p.
type textCol struct{ p *string }

func (c textCol) Scan(src any) error {
	switch v := src.(type) {
	case string:
		*c.p = v
	case []byte:
		s, err := unpackText(v)
		if err != nil {
			return err
		}
		*c.p = s
	case nil:
		*c.p = ""
	default:
		return fmt.Errorf("corrupt id column: %T", src)
	}
	return nil
}

// sharedCol scans a text or packed id column (textCol's values) into s,
// keeping the previous row's string when the value repeats it, so the rows
// of one statement share one string per run of equal values. NULL is "".
type sharedCol struct {
	s    string
	last []byte // the packed value s was made from; nil when s came from text
}

func (c *sharedCol) Scan(src any) error {
	switch v := src.(type) {
	case string:
		if v != c.s || c.last != nil {
			c.s, c.last = v, nil
		}
	case []byte:
		if c.last != nil && bytes.Equal(v, c.last) {
			return nil
		}
		s, err := unpackText(v)
		if err != nil {
			return err
		}
		c.s, c.last = s, append(c.last[:0], v...)
	case nil:
		c.s, c.last = "", nil
	default:
		return fmt.Errorf("corrupt id column: %T", src)
	}
	return nil
}

// laxTextCol is textCol that scans a corrupt value as "": the search
// index catch-up only compares ids with the ones it remembers, and one bad
// row must not stop every search.
type laxTextCol struct{ p *string }

func (c laxTextCol) Scan(src any) error {
	if (textCol{c.p}).Scan(src) != nil {
		*c.p = ""
	}
	return nil
}

// roleCol scans a role column into *p.
type roleCol struct{ p *string }

func (c roleCol) Scan(src any) error {
	switch v := src.(type) {
	case string:
		*c.p = v
	case []byte:
		*c.p = string(v)
	case int64:
		if v < 0 || v >= int64(len(roleCodes)) {
			return fmt.Errorf("corrupt role column: code %d", v)
		}
		*c.p = roleCodes[v]
	default:
		return fmt.Errorf("corrupt role column: %T", src)
	}
	return nil
}
