package wireschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
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

// parse decodes one JSON document.
func parse(data []byte) (value, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return value{}, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return value{}, errors.New("data after the JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (value, error) {
	tok, err := dec.Token()
	if err != nil {
		return value{}, err
	}
	switch t := tok.(type) {
	case nil:
		return value{kind: kNull}, nil
	case bool:
		return value{kind: kBool, b: t}, nil
	case json.Number:
		// An out-of-range number (1e400) is ±Inf, as JSON.parse reads it.
		f, err := strconv.ParseFloat(t.String(), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return value{}, fmt.Errorf("number %s: %w", t, err)
		}
		return value{kind: kNumber, num: f, raw: t.String()}, nil
	case string:
		return value{kind: kString, str: t}, nil
	case json.Delim:
		switch t {
		case '[':
			v := value{kind: kArray}
			for dec.More() {
				e, err := decodeValue(dec)
				if err != nil {
					return value{}, err
				}
				v.arr = append(v.arr, e)
			}
			_, err := dec.Token()
			return v, err
		case '{':
			v := value{kind: kObject, vals: map[string]value{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return value{}, err
				}
				k, _ := kt.(string)
				e, err := decodeValue(dec)
				if err != nil {
					return value{}, err
				}
				// A repeated key keeps its first place and its last
				// value, as JSON.parse does.
				if _, seen := v.vals[k]; !seen {
					v.keys = append(v.keys, k)
				}
				v.vals[k] = e
			}
			_, err := dec.Token()
			return v, err
		}
	}
	return value{}, fmt.Errorf("unexpected token %v", tok)
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
