package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// args is a tool's decoded JSON arguments, with snake_case aliases folded
// into their camelCase names. Getters record the first problem; call err
// when done.
type args struct {
	tool string
	m    map[string]json.RawMessage
	used map[string]bool
	prob error
}

// parseArgs decodes raw as a JSON object. known lists the tool's
// parameter names (camelCase); any other key is an error.
func parseArgs(tool string, raw json.RawMessage, known ...string) (*args, error) {
	a := &args{tool: tool, m: map[string]json.RawMessage{}, used: map[string]bool{}}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return a, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, domain.Invalid("%s: arguments must be a JSON object: %v", tool, err)
	}
	isKnown := map[string]bool{}
	for _, k := range known {
		isKnown[k] = true
	}
	var unknown []string
	for k, v := range m {
		name := camel(k)
		if !isKnown[name] {
			unknown = append(unknown, k)
			continue
		}
		if _, dup := a.m[name]; dup && name != k {
			continue // the camelCase spelling wins over its alias
		}
		a.m[name] = v
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, domain.Invalid("%s: unknown parameter %s (accepted: %s)", tool, quoteList(unknown), strings.Join(known, ", "))
	}
	return a, nil
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

func (a *args) fail(format string, v ...any) {
	if a.prob == nil {
		a.prob = domain.Invalid(format, v...)
	}
}

func (a *args) err() error { return a.prob }

func (a *args) has(name string) bool {
	v, ok := a.m[name]
	return ok && string(bytes.TrimSpace(v)) != "null"
}

// str reads an optional string of at most max characters.
func (a *args) str(name string, max int) (string, bool) {
	if !a.has(name) {
		return "", false
	}
	var s string
	if err := json.Unmarshal(a.m[name], &s); err != nil {
		a.fail("%s must be a string", name)
		return "", false
	}
	if max > 0 && len([]rune(s)) > max {
		a.fail("%s is too long (%d characters; max %d)", name, len([]rune(s)), max)
		return "", false
	}
	return s, true
}

// required reads a required non-empty string.
func (a *args) required(name string, max int) string {
	s, ok := a.str(name, max)
	if !ok && a.prob == nil {
		a.fail("%s required", name)
	}
	if ok && strings.TrimSpace(s) == "" {
		a.fail("%s required (it is empty)", name)
	}
	return s
}

// limited reads an optional whole number within l, a limit of the api's
// table: clamped or refused as l says, the error naming the parameter as
// the caller wrote it.
func (a *args) limited(name string, l api.Limit) (int64, bool) {
	if !a.has(name) {
		return 0, false
	}
	var f float64
	if err := json.Unmarshal(a.m[name], &f); err != nil {
		a.fail("%s must be a number", name)
		return 0, false
	}
	l.Name = name
	n, err := l.ApplyFloat(f)
	if err != nil {
		if a.prob == nil {
			a.prob = err
		}
		return 0, false
	}
	return n, true
}

// text reads an optional string within l's length (characters).
func (a *args) text(name string, l api.Limit) (string, bool) {
	return a.str(name, int(l.Max))
}

// boolean reads an optional boolean.
func (a *args) boolean(name string) (bool, bool) {
	if !a.has(name) {
		return false, false
	}
	var b bool
	if err := json.Unmarshal(a.m[name], &b); err != nil {
		a.fail("%s must be a boolean", name)
		return false, false
	}
	return b, true
}

// enum reads an optional string that must be one of values.
func (a *args) enum(name string, values ...string) (string, bool) {
	s, ok := a.str(name, 64)
	if !ok {
		return "", false
	}
	for _, v := range values {
		if s == v {
			return s, true
		}
	}
	a.fail("%s must be one of %s (got %q)", name, strings.Join(values, "|"), s)
	return "", false
}

// strings reads an optional array of strings of at most maxItems items
// (0 = the caller checks the count).
func (a *args) strings(name string, maxItems int) ([]string, bool) {
	if !a.has(name) {
		return nil, false
	}
	var ss []string
	if err := json.Unmarshal(a.m[name], &ss); err != nil {
		a.fail("%s must be an array of strings", name)
		return nil, false
	}
	if maxItems > 0 && len(ss) > maxItems {
		a.fail("%s has too many items (%d; max %d)", name, len(ss), maxItems)
		return nil, false
	}
	return ss, true
}

// raw returns the raw JSON of an optional parameter.
func (a *args) raw(name string) (json.RawMessage, bool) {
	if !a.has(name) {
		return nil, false
	}
	return a.m[name], true
}
