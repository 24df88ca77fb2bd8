package wireschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
)

// kind is the JSON type of a value.
type kind int

const (
	kNull kind = iota
	kBool
	kNumber
	kString
	kArray
	kObject
)

// value is a decoded JSON value that keeps its objects' key order: the
// order of OpenClaw's error list follows the order of the keys in the
// request (unexpected properties) and in the schema (properties).
type value struct {
	kind kind
	b    bool
	num  float64
	raw  string // a number's text, as written
	str  string
	arr  []value
	keys []string
	vals map[string]value
}

// field returns the member named key of an object.
func (v value) field(key string) (value, bool) {
	f, ok := v.vals[key]
	return f, ok
}

// maxDepth is how deeply arrays and objects may nest, encoding/json's
// own limit: a frame the gateway decoded never nests deeper.
const maxDepth = 10000

// parse decodes one JSON document. It reads the bytes directly rather than
// through json.Decoder's token stream, which allocates for every token and
// ran for every request the gateway checks.
func parse(data []byte) (value, error) {
	p := parser{data: data}
	p.space()
	v, err := p.value(0)
	if err != nil {
		return value{}, err
	}
	p.space()
	if p.i != len(p.data) {
		return value{}, errors.New("data after the JSON value")
	}
	return v, nil
}

// parser is a position in a JSON document.
type parser struct {
	data []byte
	i    int
}

func (p *parser) space() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) fail(what string) error {
	if p.i >= len(p.data) {
		return fmt.Errorf("unexpected end of JSON input (want %s)", what)
	}
	return fmt.Errorf("invalid character %q at offset %d (want %s)", p.data[p.i], p.i, what)
}

func (p *parser) value(depth int) (value, error) {
	if p.i >= len(p.data) {
		return value{}, p.fail("a value")
	}
	switch c := p.data[p.i]; {
	case c == '{':
		return p.object(depth + 1)
	case c == '[':
		return p.array(depth + 1)
	case c == '"':
		s, err := p.str()
		return value{kind: kString, str: s}, err
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case p.literal("true"):
		return value{kind: kBool, b: true}, nil
	case p.literal("false"):
		return value{kind: kBool}, nil
	case p.literal("null"):
		return value{kind: kNull}, nil
	}
	return value{}, p.fail("a value")
}

// literal consumes word if the input continues with it.
func (p *parser) literal(word string) bool {
	if !bytes.HasPrefix(p.data[p.i:], []byte(word)) {
		return false
	}
	p.i += len(word)
	return true
}

func (p *parser) object(depth int) (value, error) {
	if depth > maxDepth {
		return value{}, errors.New("JSON nests too deeply")
	}
	p.i++ // {
	v := value{kind: kObject, vals: map[string]value{}}
	p.space()
	if p.i < len(p.data) && p.data[p.i] == '}' {
		p.i++
		return v, nil
	}
	for {
		p.space()
		if p.i >= len(p.data) || p.data[p.i] != '"' {
			return value{}, p.fail("a property name")
		}
		k, err := p.str()
		if err != nil {
			return value{}, err
		}
		p.space()
		if p.i >= len(p.data) || p.data[p.i] != ':' {
			return value{}, p.fail("':'")
		}
		p.i++
		p.space()
		e, err := p.value(depth)
		if err != nil {
			return value{}, err
		}
		// A repeated key keeps its first place and its last value, as
		// JSON.parse does.
		if _, seen := v.vals[k]; !seen {
			v.keys = append(v.keys, k)
		}
		v.vals[k] = e
		p.space()
		if p.i < len(p.data) && p.data[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.data) && p.data[p.i] == '}' {
			p.i++
			return v, nil
		}
		return value{}, p.fail("',' or '}'")
	}
}

func (p *parser) array(depth int) (value, error) {
	if depth > maxDepth {
		return value{}, errors.New("JSON nests too deeply")
	}
	p.i++ // [
	v := value{kind: kArray}
	p.space()
	if p.i < len(p.data) && p.data[p.i] == ']' {
		p.i++
		return v, nil
	}
	for {
		p.space()
		e, err := p.value(depth)
		if err != nil {
			return value{}, err
		}
		v.arr = append(v.arr, e)
		p.space()
		if p.i < len(p.data) && p.data[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.data) && p.data[p.i] == ']' {
			p.i++
			return v, nil
		}
		return value{}, p.fail("',' or ']'")
	}
}

// str reads a string. One without escapes that is valid UTF-8 is its own
// bytes; any other is unquoted by encoding/json, so escapes, surrogate
// pairs and invalid UTF-8 read exactly as they always have.
func (p *parser) str() (string, error) {
	start := p.i
	p.i++ // "
	plain := true
	for p.i < len(p.data) {
		switch c := p.data[p.i]; {
		case c == '"':
			p.i++
			raw := p.data[start:p.i]
			if plain && utf8.Valid(raw) {
				return string(raw[1 : len(raw)-1]), nil
			}
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return "", fmt.Errorf("string at offset %d: %w", start, err)
			}
			return s, nil
		case c == '\\':
			plain = false
			p.i += 2
		case c < 0x20:
			return "", p.fail("a closing '\"'")
		default:
			p.i++
		}
	}
	return "", p.fail("a closing '\"'")
}

// number reads a number as JSON's grammar writes it.
func (p *parser) number() (value, error) {
	start := p.i
	if p.data[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(p.data) && p.data[p.i] == '0':
		p.i++
	case p.digits() == 0:
		return value{}, p.fail("a digit")
	}
	if p.i < len(p.data) && p.data[p.i] == '.' {
		p.i++
		if p.digits() == 0 {
			return value{}, p.fail("a digit")
		}
	}
	if p.i < len(p.data) && (p.data[p.i] == 'e' || p.data[p.i] == 'E') {
		p.i++
		if p.i < len(p.data) && (p.data[p.i] == '+' || p.data[p.i] == '-') {
			p.i++
		}
		if p.digits() == 0 {
			return value{}, p.fail("a digit")
		}
	}
	raw := string(p.data[start:p.i])
	// An out-of-range number (1e400) is ±Inf, as JSON.parse reads it.
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return value{}, fmt.Errorf("number %s: %w", raw, err)
	}
	return value{kind: kNumber, num: f, raw: raw}, nil
}

// digits consumes a run of decimal digits and says how many.
func (p *parser) digits() int {
	n := 0
	for p.i < len(p.data) && p.data[p.i] >= '0' && p.data[p.i] <= '9' {
		p.i++
		n++
	}
	return n
}

// isInteger is JavaScript's Number.isInteger.
func (v value) isInteger() bool {
	return v.kind == kNumber && !math.IsInf(v.num, 0) && !math.IsNaN(v.num) && v.num == math.Trunc(v.num)
}

// equal is deep equality of JSON values (object key order aside).
func equal(a, b value) bool {
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case kNull:
		return true
	case kBool:
		return a.b == b.b
	case kNumber:
		return a.num == b.num
	case kString:
		return a.str == b.str
	case kArray:
		if len(a.arr) != len(b.arr) {
			return false
		}
		for i := range a.arr {
			if !equal(a.arr[i], b.arr[i]) {
				return false
			}
		}
		return true
	default:
		if len(a.keys) != len(b.keys) {
			return false
		}
		for _, k := range a.keys {
			bv, ok := b.vals[k]
			if !ok || !equal(a.vals[k], bv) {
				return false
			}
		}
		return true
	}
}
