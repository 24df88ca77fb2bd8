package transcript

import (
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// fastEntry decodes an entry line in one pass over its bytes, validating
// the JSON as it goes, for the shapes OpenClaw writes: keys spelled
// exactly, strings, integers, booleans, known objects. encoding/json
// validates a whole line before decoding it and then decodes a message's
// content a second time (Content.UnmarshalJSON), which was about half of
// an import's CPU.
//
// ok is false whenever the line is anything else: invalid JSON, a key in
// another case, a duplicate key, a value of an unexpected type, an empty
// content array. parseEntry then decodes the line with encoding/json, so
// every error, skip reason and lenient rule stays encoding/json's;
// TestFastEntryMatchesJSON and FuzzFastEntry hold the two paths together.
func fastEntry(line []byte) (w wireEntry, ok bool) { return fastEntryIn(line, nil) }

// fastEntryIn is fastEntry taking the message from slab (nil: a new one).
func fastEntryIn(line []byte, slab *msgSlab) (w wireEntry, ok bool) {
	s := scanner{b: line}
	ok = s.fields(entryKeys, func(key string) (ok bool) {
		switch key {
		case "type":
			w.Type, ok = s.str()
		case "id":
			w.ID, ok = s.str()
		case "parentId":
			if s.null() {
				return true // w.ParentID stays nil
			}
			var p string
			p, ok = s.str()
			w.ParentID = &p
		case "timestamp":
			var raw []byte
			raw, ok = s.value()
			w.Timestamp = json.RawMessage(raw)
		case "message":
			if s.null() {
				w.Message = nil
				return true
			}
			m := slab.next()
			ok = s.message(m)
			w.Message = m
		}
		return ok
	})
	if !ok {
		return wireEntry{}, false
	}
	s.ws()
	return w, s.i == len(s.b)
}

// scanner is a strict JSON reader over one line. Each method reports
// false on anything the fast path does not handle.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// lit consumes the literal word if it is next.
func (s *scanner) lit(word string) bool {
	if s.peek() != word[0] || len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		return false
	}
	s.i += len(word)
	return true
}

func (s *scanner) null() bool { return s.lit("null") }

// object reads an object, calling field with each key; field reads the
// value.
func (s *scanner) object(field func(key []byte) bool) bool {
	if s.peek() != '{' {
		return false
	}
	s.i++
	if s.peek() == '}' {
		s.i++
		return true
	}
	for {
		key, ok := s.rawString()
		if !ok || s.peek() != ':' {
			return false
		}
		s.i++
		if !field(key) {
			return false
		}
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}

// rawString reads a string without escapes or control characters and
// returns its bytes (without quotes); a string with escapes is not
// handled here.
func (s *scanner) rawString() ([]byte, bool) {
	if s.peek() != '"' {
		return nil, false
	}
	start := s.i + 1
	for j := start; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			s.i = j + 1
			return s.b[start:j], true
		case c == '\\' || c < 0x20:
			return nil, false
		}
	}
	return nil, false
}

// str reads a string value, decoding escapes through encoding/json (the
// string alone) and keeping its replacement of invalid UTF-8.
func (s *scanner) str() (string, bool) {
	if s.peek() != '"' {
		return "", false
	}
	start := s.i
	raw, ok := s.rawString()
	if ok {
		if utf8.Valid(raw) {
			return string(raw), true
		}
	} else if !s.skipString() {
		return "", false
	}
	var v string
	if json.Unmarshal(s.b[start:s.i], &v) != nil {
		return "", false
	}
	return v, true
}

// skipString moves past a string with any valid escapes.
func (s *scanner) skipString() bool {
	if s.peek() != '"' {
		return false
	}
	for j := s.i + 1; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			s.i = j + 1
			return true
		case c < 0x20:
			return false
		case c == '\\':
			j++
			if j >= len(s.b) {
				return false
			}
			switch s.b[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(s.b) {
					return false
				}
				for _, h := range s.b[j+1 : j+5] {
					if !isHex(h) {
						return false
					}
				}
				j += 4
			default:
				return false
			}
		}
	}
	return false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// number reads a JSON number token.
func (s *scanner) number() ([]byte, bool) {
	s.ws()
	start, j := s.i, s.i
	if j < len(s.b) && s.b[j] == '-' {
		j++
	}
	digits := func() int {
		k := j
		for j < len(s.b) && s.b[j] >= '0' && s.b[j] <= '9' {
			j++
		}
		return j - k
	}
	switch n := digits(); {
	case n == 0:
		return nil, false
	case n > 1 && s.b[j-n] == '0':
		return nil, false
	}
	if j < len(s.b) && s.b[j] == '.' {
		j++
		if digits() == 0 {
			return nil, false
		}
	}
	if j < len(s.b) && (s.b[j] == 'e' || s.b[j] == 'E') {
		j++
		if j < len(s.b) && (s.b[j] == '+' || s.b[j] == '-') {
			j++
		}
		if digits() == 0 {
			return nil, false
		}
	}
	s.i = j
	return s.b[start:j], true
}

// int reads an integer that fits int64.
func (s *scanner) int() (int64, bool) {
	tok, ok := s.number()
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(string(tok), 10, 64)
	return n, err == nil
}

// value moves past any value, validating it, and returns its bytes.
func (s *scanner) value() ([]byte, bool) {
	start := s.peekPos()
	ok := s.skipValue(0)
	return s.b[start:s.i], ok
}

func (s *scanner) peekPos() int { s.ws(); return s.i }

// maxDepth bounds nesting; deeper values go to encoding/json.
const maxDepth = 64

func (s *scanner) skipValue(depth int) bool {
	if depth > maxDepth {
		return false
	}
	switch c := s.peek(); {
	case c == '"':
		return s.skipString()
	case c == '{':
		return s.object(func([]byte) bool { return s.skipValue(depth + 1) })
	case c == '[':
		return s.array(func() bool { return s.skipValue(depth + 1) })
	case c == 't':
		return s.lit("true")
	case c == 'f':
		return s.lit("false")
	case c == 'n':
		return s.null()
	default:
		_, ok := s.number()
		return ok
	}
}

// array reads an array, calling elem for each element; it reports false
// for an empty array only through elem never running (callers check).
func (s *scanner) array(elem func() bool) bool {
	if s.peek() != '[' {
		return false
	}
	s.i++
	if s.peek() == ']' {
		s.i++
		return true
	}
	for {
		if !elem() {
			return false
		}
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return true
		default:
			return false
		}
	}
}

// message decodes a message object into m.
func (s *scanner) message(m *domain.Message) bool {
	return s.fields(messageKeys, func(key string) (ok bool) {
		switch key {
		case "role":
			m.Role, ok = s.str()
		case "content":
			ok = s.content(&m.Content)
		case "timestamp":
			m.Timestamp, ok = s.int()
		case "provenance":
			ok = s.sub(&m.Provenance)
		case "api":
			m.API, ok = s.str()
		case "provider":
			m.Provider, ok = s.str()
		case "model":
			m.Model, ok = s.str()
		case "usage":
			ok = s.subUsage(&m.Usage)
		case "stopReason":
			m.StopReason, ok = s.str()
		case "errorMessage":
			m.ErrorMessage, ok = s.str()
		case "toolCallId":
			m.ToolCallID, ok = s.str()
		case "toolName":
			m.ToolName, ok = s.str()
		case "isError":
			var b bool
			b, ok = s.bool()
			m.IsError = &b
		case "details":
			var raw []byte
			raw, ok = s.value()
			ok = ok && string(raw) != "null" // null becomes "null": encoding/json's rule
			m.Details = append(json.RawMessage(nil), raw...)
		case "kind":
			m.Kind, ok = s.str()
		}
		return ok
	})
}

// fields decodes an object whose known keys are keys (at most 32): each
// known key's value is read by field. An unknown key's value is skipped,
// but a key in another case or a duplicate key makes it false: for those
// encoding/json's case folding and merge rules apply, so the line takes
// the slow path.
func (s *scanner) fields(keys []string, field func(key string) bool) bool {
	seen := uint32(0)
	return s.object(func(raw []byte) bool {
		i := slices.Index(keys, string(raw))
		if i < 0 {
			if knownFold(string(raw), keys) {
				return false
			}
			_, ok := s.value()
			return ok
		}
		if seen&(1<<i) != 0 {
			return false
		}
		seen |= 1 << i
		return field(keys[i])
	})
}

var entryKeys = []string{"type", "id", "parentId", "timestamp", "message"}

var messageKeys = []string{"role", "content", "timestamp", "provenance", "api", "provider", "model", "usage",
	"stopReason", "errorMessage", "toolCallId", "toolName", "isError", "details", "kind"}

var blockKeys = []string{"type", "text", "textSignature", "thinking", "thinkingSignature", "id", "name",
	"arguments", "data", "mimeType", "omitted", "bytes"}

// knownFold reports whether k equals one of keys ignoring case.
func knownFold(k string, keys []string) bool {
	for _, key := range keys {
		if len(k) == len(key) && equalFoldASCII(k, key) {
			return true
		}
	}
	// Non-ASCII keys may fold onto ASCII ones (the Kelvin sign onto k);
	// leave them to encoding/json.
	for i := 0; i < len(k); i++ {
		if k[i] >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

func equalFoldASCII(a, b string) bool {
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

func (s *scanner) bool() (bool, bool) {
	switch {
	case s.lit("true"):
		return true, true
	case s.lit("false"):
		return false, true
	}
	return false, false
}

// sub decodes a provenance object: its fields are all strings, read here
// in one pass (a chat user message has one, and encoding/json validating
// and decoding it was most of such a message's decode). A value of another
// type, a null field, a duplicate or a key in another case makes it false,
// and the message takes encoding/json's path.
func (s *scanner) sub(p **domain.Provenance) bool {
	if s.null() {
		*p = nil
		return true
	}
	v := new(domain.Provenance)
	ok := s.fields(provenanceKeys, func(key string) (ok bool) {
		switch key {
		case "kind":
			v.Kind, ok = s.str()
		case "originSessionId":
			v.OriginSessionID, ok = s.str()
		case "sourceSessionKey":
			v.SourceSessionKey, ok = s.str()
		case "sourceChannel":
			v.SourceChannel, ok = s.str()
		case "sourceTool":
			v.SourceTool, ok = s.str()
		case "sourceRunId":
			v.SourceRunID, ok = s.str()
		case "step":
			v.Step, ok = s.str()
		}
		return ok
	})
	if !ok {
		return false
	}
	*p = v
	return true
}

var provenanceKeys = []string{"kind", "originSessionId", "sourceSessionKey", "sourceChannel", "sourceTool", "sourceRunId", "step"}

func (s *scanner) subUsage(p **domain.Usage) bool {
	if s.null() {
		*p = nil
		return true
	}
	u := new(domain.Usage)
	ints := []*int64{&u.Input, &u.Output, &u.CacheRead, &u.CacheWrite, &u.TotalTokens}
	ok := s.fields(usageKeys, func(key string) bool {
		if i := slices.Index(usageKeys, key); i < len(ints) {
			var ok bool
			*ints[i], ok = s.int()
			return ok
		}
		if s.null() {
			return false
		}
		u.Cost = new(domain.Cost)
		return s.cost(u.Cost)
	})
	*p = u
	return ok
}

var (
	usageKeys = []string{"input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost"}
	costKeys  = []string{"input", "output", "cacheRead", "cacheWrite", "total"}
)

func (s *scanner) cost(c *domain.Cost) bool {
	fields := []*float64{&c.Input, &c.Output, &c.CacheRead, &c.CacheWrite, &c.Total}
	return s.fields(costKeys, func(key string) bool {
		tok, ok := s.number()
		if !ok {
			return false
		}
		x, err := strconv.ParseFloat(string(tok), 64)
		*fields[slices.Index(costKeys, key)] = x
		return err == nil
	})
}

// content decodes a string or a non-empty array of blocks.
func (s *scanner) content(c *domain.Content) bool {
	switch s.peek() {
	case 'n':
		*c = domain.Content{}
		return s.null()
	case '"':
		v, ok := s.str()
		*c = domain.TextContent(v)
		return ok
	case '[':
	default:
		return false
	}
	var blocks []domain.Block
	ok := s.array(func() bool {
		blocks = append(blocks, domain.Block{})
		return s.block(&blocks[len(blocks)-1])
	})
	if !ok || len(blocks) == 0 {
		return false
	}
	*c = domain.BlockContent(blocks...)
	return true
}

func (s *scanner) block(b *domain.Block) bool {
	return s.fields(blockKeys, func(key string) (ok bool) {
		switch key {
		case "type":
			b.Type, ok = s.str()
		case "text":
			b.Text, ok = s.str()
		case "textSignature":
			b.TextSignature, ok = s.str()
		case "thinking":
			b.Thinking, ok = s.str()
		case "thinkingSignature":
			b.ThinkingSignature, ok = s.str()
		case "id":
			b.ID, ok = s.str()
		case "name":
			b.Name, ok = s.str()
		case "arguments":
			var raw []byte
			raw, ok = s.value()
			ok = ok && string(raw) != "null"
			b.Arguments = append(json.RawMessage(nil), raw...)
		case "data":
			b.Data, ok = s.str()
		case "mimeType":
			b.MimeType, ok = s.str()
		case "omitted":
			b.Omitted, ok = s.bool()
		case "bytes":
			var n int64
			n, ok = s.int()
			b.Bytes = int(n)
			ok = ok && int64(b.Bytes) == n
		}
		return ok
	})
}
