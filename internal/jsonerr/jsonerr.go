// Package jsonerr turns the errors of decoding a JSON request into the
// plain words every surface shows: the path of the offending value with
// array indexes (`attachments[1].content`) and the JSON type it must be
// (`must be a string`), never a Go type name or `json: cannot unmarshal`.
// The gateway's WS params and HTTP bodies and the tools' arguments (so MCP
// too) use it, so a type error reads the same everywhere.
package jsonerr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
)

// Describe says what is wrong with data, which failed to decode with err.
// prefix is the path of data itself ("" for a request's top-level object,
// "budget" for a parameter's value); a type error reads
// "<path> must be <type> (got <what>)".
func Describe(prefix string, data []byte, err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		path := Path(prefix, data, te.Offset)
		if path == "" {
			path = te.Field
			if prefix != "" && path != "" {
				path = prefix + "." + path
			}
		}
		if path == "" {
			path = "value"
		}
		return fmt.Sprintf("%s must be %s (got %s)", path, want(te.Type, te.Value), got(te.Value))
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("not valid JSON: %s (at byte %d)", se.Error(), se.Offset)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return "not valid JSON: it ends too early"
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if name, ok := strings.CutPrefix(msg, "unknown field "); ok {
		return "unknown field " + name
	}
	return msg
}

// want names the JSON type a Go type decodes from; value is what was
// given (json.UnmarshalTypeError.Value: "string", "number 1.5", …).
func want(t reflect.Type, value string) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if n, ok := strings.CutPrefix(value, "number "); ok {
			if strings.ContainsAny(n, ".eE") {
				return "a whole number"
			}
			return "a whole number in range"
		}
		return "a number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.String {
			return "an array of strings"
		}
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "another JSON type"
}

// got names what was given, from json.UnmarshalTypeError.Value.
func got(value string) string {
	switch value {
	case "string":
		return "a string"
	case "number":
		return "a number"
	case "bool":
		return "a boolean"
	case "array":
		return "an array"
	case "object":
		return "an object"
	}
	if n, ok := strings.CutPrefix(value, "number "); ok {
		return n
	}
	return value
}

// frame is one open container while walking a document.
type frame struct {
	array   bool
	index   int
	key     string
	wantKey bool
}

// Path returns the path (`a.b[2].c`, under prefix) of the value of data
// that a decoder's type error at offset points at: a scalar ending at
// offset, or a container opening just before it. It returns "" when data
// does not hold such a value.
func Path(prefix string, data []byte, offset int64) string {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var stack []frame
	for {
		if n := len(stack); n > 0 && stack[n-1].wantKey {
			tok, err := dec.Token()
			if err != nil {
				return ""
			}
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:n-1]
				advance(stack)
				continue
			}
			stack[n-1].key, _ = tok.(string)
			stack[n-1].wantKey = false
			continue
		}
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		if d, ok := tok.(json.Delim); ok && (d == ']' || d == '}') {
			stack = stack[:len(stack)-1]
			advance(stack)
			continue
		}
		if dec.InputOffset() >= offset {
			return join(prefix, stack)
		}
		switch tok {
		case json.Delim('['):
			stack = append(stack, frame{array: true})
		case json.Delim('{'):
			stack = append(stack, frame{wantKey: true})
		default:
			advance(stack)
		}
	}
}

// advance moves the innermost container past a finished value.
func advance(stack []frame) {
	if n := len(stack); n > 0 {
		if stack[n-1].array {
			stack[n-1].index++
		} else {
			stack[n-1].wantKey = true
		}
	}
}

func join(prefix string, stack []frame) string {
	var b strings.Builder
	b.WriteString(prefix)
	for _, f := range stack {
		if f.array {
			b.WriteString("[" + strconv.Itoa(f.index) + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(f.key)
	}
	return b.String()
}
