package api

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strconv"
)

// Int is a numeric parameter as WS params and HTTP bodies carry it. It
// takes what the tools take (Limit.ApplyFloat): any JSON number that is
// whole — 50, 50.0, 5e1 — and a whole number beyond int64's range as the
// nearest int64, so a clamped limit clamps 1e20 on every surface instead
// of the tools clamping it and the gateway refusing it. A fraction, a
// string or a boolean is a type error naming the field, as for int64.
type Int int64

// Int64 is n as an int64 parameter: nil when absent.
func (n *Int) Int64() *int64 {
	if n == nil {
		return nil
	}
	v := int64(*n)
	return &v
}

// UnmarshalJSON implements json.Unmarshaler.
func (n *Int) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" {
		return nil
	}
	v, err := ParseWhole(s)
	if err != nil {
		return &json.UnmarshalTypeError{Value: jsonKind(s), Type: reflect.TypeFor[int64]()}
	}
	*n = Int(v)
	return nil
}

// errNotWhole is ParseWhole's refusal.
var errNotWhole = errors.New("not a whole number")

// ParseWhole reads a whole number written as a JSON number (or a plain
// integer): beyond int64's range it saturates, a fraction is refused. The
// HTTP query parameters read it too.
func ParseWhole(s string) (int64, error) {
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return v, nil
	}
	if !json.Valid([]byte(s)) || s == "" || (s[0] != '-' && (s[0] < '0' || s[0] > '9')) {
		return 0, errNotWhole
	}
	f, err := strconv.ParseFloat(s, 64)
	var ne *strconv.NumError
	if err != nil && !(errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange)) {
		return 0, errNotWhole
	}
	switch {
	case f >= math.MaxInt64:
		return math.MaxInt64, nil
	case f <= math.MinInt64:
		return math.MinInt64, nil
	case f != math.Trunc(f):
		return 0, errNotWhole
	}
	return int64(f), nil
}

// jsonKind is what encoding/json's UnmarshalTypeError.Value says of the
// JSON value s ("number 1.5", "string", …), which jsonerr words.
func jsonKind(s string) string {
	switch {
	case s == "":
		return "value"
	case s[0] == '"':
		return "string"
	case s == "true" || s == "false":
		return "bool"
	case s[0] == '{':
		return "object"
	case s[0] == '[':
		return "array"
	}
	return "number " + s
}
