package config

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/titanous/json5"
)

// maxProblems bounds how many problems one decode reports, so a file that
// is wrong everywhere still gives a readable error.
const maxProblems = 50

// tree walks a generic JSON5 value against a Go type, the way
// encoding/json would decode it, but strictly: object keys must equal a
// json tag exactly, and values must have the right JSON type. Problems are
// collected with their key path. It returns the value rewritten for
// encoding/json: ${ENV} expanded in strings, numbers as int64 or
// json.Number (JSON5 allows hex, a leading '+' and '.5', JSON does not).
type tree struct {
	getenv   func(string) string
	problems []Problem
}

func (d *tree) add(path, format string, args ...any) {
	if len(d.problems) < maxProblems {
		d.problems = append(d.problems, Problem{Path: path, Message: fmt.Sprintf(format, args...)})
	}
}

func (d *tree) value(path string, v any, t reflect.Type) any {
	if v == nil {
		// null: encoding/json clears pointers, slices and maps and leaves
		// other values alone, so null means "the default" everywhere.
		return nil
	}
	switch t.Kind() {
	case reflect.Pointer:
		return d.value(path, v, t.Elem())
	case reflect.Struct:
		return d.object(path, v, t)
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			d.add(path, "want an object, got %s", describe(v))
			return nil
		}
		out := make(map[string]any, len(m))
		for _, k := range sortedKeys(m) {
			out[k] = d.value(joinKey(path, k), m[k], t.Elem())
		}
		return out
	case reflect.Slice:
		a, ok := v.([]any)
		if !ok {
			d.add(path, "want an array, got %s", describe(v))
			return nil
		}
		out := make([]any, len(a))
		for i, e := range a {
			out[i] = d.value(fmt.Sprintf("%s[%d]", path, i), e, t.Elem())
		}
		return out
	case reflect.String:
		s, ok := v.(string)
		if !ok {
			d.add(path, "want a string, got %s", describe(v))
			return nil
		}
		return d.expand(path, s)
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			d.add(path, "want true or false, got %s", describe(v))
			return nil
		}
		return v
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := v.(json5.Number)
		if !ok {
			d.add(path, "want an integer, got %s", describe(v))
			return nil
		}
		i, err := integer(n)
		if err != nil {
			d.add(path, "%s", err)
			return nil
		}
		if reflect.New(t).Elem().OverflowInt(i) {
			d.add(path, "%d is too large", i)
			return nil
		}
		return i
	case reflect.Float64:
		var f float64
		switch x := v.(type) {
		case json5.Number:
			var err error
			if f, err = x.Float64(); err != nil {
				d.add(path, "invalid number %s", x)
				return nil
			}
		case float64:
			f = x
		default:
			d.add(path, "want a number, got %s", describe(v))
			return nil
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			d.add(path, "want a finite number, got %v", f)
			return nil
		}
		return f
	case reflect.Interface:
		return d.anyValue(path, v)
	}
	// Config has no other kinds; refuse rather than guess.
	d.add(path, "cannot decode into %s", t)
	return nil
}

// object decodes a JSON object into struct type t.
func (d *tree) object(path string, v any, t reflect.Type) any {
	m, ok := v.(map[string]any)
	if !ok {
		d.add(path, "want an object, got %s", describe(v))
		return nil
	}
	fields := jsonFields(t)
	out := make(map[string]any, len(m))
	for _, k := range sortedKeys(m) {
		p := joinKey(path, k)
		f, ok := fields[k]
		if !ok {
			if s := suggest(k, fields); s != "" {
				d.add(p, "unknown key (did you mean %q?)", s)
			} else {
				d.add(p, "unknown key")
			}
			continue
		}
		out[k] = d.value(p, m[k], f.Type)
	}
	return out
}

// anyValue rewrites a free-form value (script tool-call arguments) for
// encoding/json.
func (d *tree) anyValue(path string, v any) any {
	switch x := v.(type) {
	case string:
		return d.expand(path, x)
	case json5.Number:
		if i, err := integer(x); err == nil {
			return i
		}
		f, err := x.Float64()
		if err != nil {
			d.add(path, "invalid number %s", x)
			return nil
		}
		return f
	case float64: // json5 yields Infinity and NaN as float64
		if math.IsInf(x, 0) || math.IsNaN(x) {
			d.add(path, "%v cannot be represented in JSON", x)
			return nil
		}
		return x
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = d.anyValue(fmt.Sprintf("%s[%d]", path, i), e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for _, k := range sortedKeys(x) {
			out[k] = d.anyValue(joinKey(path, k), x[k])
		}
		return out
	}
	return v // bool, nil
}

func (d *tree) expand(path, s string) string {
	out, err := expandEnv(s, d.getenv)
	if err != nil {
		d.add(path, "%s", err)
		return s
	}
	return out
}

// integer converts a JSON5 number literal (decimal, hex, exponent) to an
// int64, refusing fractions and values out of range.
func integer(n json5.Number) (int64, error) {
	if i, err := n.Int64(); err == nil {
		return i, nil
	}
	f, err := n.Float64()
	if err != nil {
		return 0, fmt.Errorf("invalid number %s", n)
	}
	if f != math.Trunc(f) {
		return 0, fmt.Errorf("want an integer, got %s", n)
	}
	if f >= math.MaxInt64 || f < math.MinInt64 {
		return 0, fmt.Errorf("%s is too large", n)
	}
	return int64(f), nil
}

// jsonFields maps the JSON names of t's fields to the fields.
func jsonFields(t reflect.Type) map[string]reflect.StructField {
	out := make(map[string]reflect.StructField, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f
	}
	return out
}

// suggest returns the field name closest to an unknown key: one that
// differs only in case, or by at most two edits.
func suggest(key string, fields map[string]reflect.StructField) string {
	best, bestDist := "", 3
	for _, name := range sortedKeys(fields) {
		if strings.EqualFold(name, key) {
			return name
		}
		if d := editDistance(strings.ToLower(key), strings.ToLower(name)); d < bestDist {
			best, bestDist = name, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b (bytes).
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return math.MaxInt // not worth comparing
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// joinKey appends an object key to a path: a.b for plain keys,
// a["x.y"] for keys that would be ambiguous in dotted form.
func joinKey(path, key string) string {
	if !plainKey(key) {
		return path + "[" + strconv.Quote(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

func plainKey(k string) bool {
	if k == "" {
		return false
	}
	for _, r := range k {
		if !(r == '_' || r == '-' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9')) {
			return false
		}
	}
	return true
}

// describe names the JSON type of a decoded JSON5 value for messages.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json5.Number:
		return "the number " + string(x)
	case float64:
		return fmt.Sprintf("the number %v", x)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// reencode turns the rewritten tree into JSON for encoding/json.
func reencode(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("re-encode: %w", err)
	}
	return b, nil
}
