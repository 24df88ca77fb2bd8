package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"unicode"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/jsonerr"
)

// fields maps the camelCase JSON names of an argument struct to their
// field indexes.
func fields(t reflect.Type) (names []string, index map[string]int) {
	index = map[string]int{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		names = append(names, name)
		index[name] = i
	}
	return names, index
}

// decode reads raw (a JSON object, or nothing) into dst, a pointer to an
// argument struct, and returns which parameters were given (JSON null
// counts as absent). Aliases in snake_case are accepted; a camelCase
// spelling wins over its alias.
func decode(tool string, raw json.RawMessage, dst any) (map[string]bool, error) {
	given := map[string]bool{}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return given, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, domain.Invalid("%s: arguments must be a JSON object", tool)
	}
	v := reflect.ValueOf(dst).Elem()
	names, index := fields(v.Type())
	folded := map[string]json.RawMessage{}
	var unknown []string
	for k, val := range m {
		name := camel(k)
		if _, ok := index[name]; !ok {
			unknown = append(unknown, k)
			continue
		}
		if _, dup := folded[name]; dup && name != k {
			continue
		}
		folded[name] = val
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		accepted := "accepted: " + strings.Join(names, ", ")
		if len(names) == 0 {
			accepted = "it takes no parameters"
		}
		return nil, domain.Invalid("%s: unknown parameter %s (%s)", tool, quoteList(unknown), accepted)
	}
	for _, name := range names {
		val, ok := folded[name]
		if !ok || string(bytes.TrimSpace(val)) == "null" {
			continue
		}
		f := v.Field(index[name])
		if err := json.Unmarshal(val, f.Addr().Interface()); err != nil {
			return nil, domain.Invalid("%s", jsonerr.Describe(name, val, err))
		}
		given[name] = true
	}
	return given, nil
}

// camel folds snake_case into camelCase (run_timeout_seconds → runTimeoutSeconds).
func camel(s string) string {
	if !strings.Contains(s, "_") {
		return s
	}
	var b strings.Builder
	up := false
	for _, r := range s {
		if r == '_' {
			up = true
			continue
		}
		if up {
			b.WriteRune(unicode.ToUpper(r))
			up = false
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func quoteList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// required refuses a missing or blank required string.
func required(given map[string]bool, name, v string) error {
	if !given[name] {
		return domain.Invalid("%s required", name)
	}
	if strings.TrimSpace(v) == "" {
		return domain.Invalid("%s required (it is empty)", name)
	}
	return nil
}

// oneOf refuses a given string that is not one of values.
func oneOf(given map[string]bool, name, v string, values []string) error {
	if !given[name] {
		return nil
	}
	for _, ok := range values {
		if v == ok {
			return nil
		}
	}
	return domain.Invalid("%s must be one of %s (got %q)", name, strings.Join(values, "|"), v)
}
