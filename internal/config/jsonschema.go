package config

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// schemaNode is the subset of JSON Schema (draft 7) that OpenClaw's
// generated channel schemas use: types, properties, additional
// properties, required keys, enums, consts, bounds, patterns and the
// anyOf/oneOf/allOf combinators.
type schemaNode struct {
	Type                 any                    `json:"type"`
	Properties           map[string]*schemaNode `json:"properties"`
	AdditionalProperties json.RawMessage        `json:"additionalProperties"`
	PropertyNames        *schemaNode            `json:"propertyNames"`
	Required             []string               `json:"required"`
	Items                *schemaNode            `json:"items"`
	Enum                 []any                  `json:"enum"`
	Const                any                    `json:"const"`
	HasConst             bool                   `json:"-"`
	AnyOf                []*schemaNode          `json:"anyOf"`
	OneOf                []*schemaNode          `json:"oneOf"`
	AllOf                []*schemaNode          `json:"allOf"`
	Minimum              *float64               `json:"minimum"`
	Maximum              *float64               `json:"maximum"`
	ExclusiveMinimum     *float64               `json:"exclusiveMinimum"`
	Pattern              string                 `json:"pattern"`

	additional *schemaNode // decoded AdditionalProperties when a schema
	closed     bool        // additionalProperties: false
	re         *regexp.Regexp
}

// compileSchema decodes a schema document.
func compileSchema(doc []byte) (*schemaNode, error) {
	var n schemaNode
	if err := json.Unmarshal(doc, &n); err != nil {
		return nil, err
	}
	if err := n.prepare(doc); err != nil {
		return nil, err
	}
	return &n, nil
}

func (n *schemaNode) prepare(raw []byte) error {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(raw, &probe); err == nil {
		if c, ok := probe["const"]; ok {
			n.HasConst = true
			_ = json.Unmarshal(c, &n.Const)
		}
	}
	if len(n.AdditionalProperties) > 0 {
		switch strings.TrimSpace(string(n.AdditionalProperties)) {
		case "false":
			n.closed = true
		case "true":
		default:
			var a schemaNode
			if err := json.Unmarshal(n.AdditionalProperties, &a); err != nil {
				return err
			}
			if err := a.prepare(n.AdditionalProperties); err != nil {
				return err
			}
			n.additional = &a
		}
	}
	if n.Pattern != "" {
		re, err := regexp.Compile(n.Pattern)
		if err != nil {
			return err
		}
		n.re = re
	}
	// Children need their own raw bytes for const detection.
	var kids struct {
		Properties    map[string]json.RawMessage `json:"properties"`
		PropertyNames json.RawMessage            `json:"propertyNames"`
		Items         json.RawMessage            `json:"items"`
		AnyOf         []json.RawMessage          `json:"anyOf"`
		OneOf         []json.RawMessage          `json:"oneOf"`
		AllOf         []json.RawMessage          `json:"allOf"`
	}
	if err := json.Unmarshal(raw, &kids); err != nil {
		return err
	}
	for k, c := range n.Properties {
		if err := c.prepare(kids.Properties[k]); err != nil {
			return err
		}
	}
	if n.PropertyNames != nil {
		if err := n.PropertyNames.prepare(kids.PropertyNames); err != nil {
			return err
		}
	}
	if n.Items != nil {
		if err := n.Items.prepare(kids.Items); err != nil {
			return err
		}
	}
	for _, l := range []struct {
		nodes []*schemaNode
		raw   []json.RawMessage
	}{{n.AnyOf, kids.AnyOf}, {n.OneOf, kids.OneOf}, {n.AllOf, kids.AllOf}} {
		for i, c := range l.nodes {
			if err := c.prepare(l.raw[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// check validates v (as encoding/json decodes into any) against n and
// returns the problems, each with its key path under path.
func (n *schemaNode) check(path string, v any) []Problem {
	var out []Problem
	add := func(p, format string, args ...any) {
		out = append(out, Problem{Path: p, Message: fmt.Sprintf(format, args...)})
	}
	if len(n.AllOf) > 0 {
		for _, c := range n.AllOf {
			out = append(out, c.check(path, v)...)
		}
	}
	if alts := append(append([]*schemaNode{}, n.AnyOf...), n.OneOf...); len(alts) > 0 {
		// v passes when one alternative accepts it; otherwise the problems
		// of the first alternative of v's own JSON type are the useful ones.
		var first []Problem
		typed, matched := false, false
		for _, c := range alts {
			ps := c.check(path, v)
			if len(ps) == 0 {
				matched = true
				break
			}
			if !typed && c.typeMatches(v) {
				typed, first = true, ps
			}
		}
		switch {
		case matched:
		case typed:
			out = append(out, first...)
		default:
			add(path, "want %s, got %s", describeAlts(alts), describe(v))
		}
	}
	if n.HasConst && !jsonEqual(n.Const, v) {
		add(path, "want %s, got %s", jsonText(n.Const), describe(v))
		return out
	}
	if len(n.Enum) > 0 {
		ok := false
		for _, e := range n.Enum {
			if jsonEqual(e, v) {
				ok = true
				break
			}
		}
		if !ok {
			names := make([]string, len(n.Enum))
			for i, e := range n.Enum {
				names[i] = jsonText(e)
			}
			add(path, "want one of %s, got %s", strings.Join(names, ", "), describe(v))
			return out
		}
	}
	if n.Type != nil && !n.typeMatches(v) {
		add(path, "want %s, got %s", strings.Join(n.types(), " or "), describe(v))
		return out
	}
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := joinKey(path, k)
			if c, ok := n.Properties[k]; ok {
				out = append(out, c.check(p, x[k])...)
				continue
			}
			if n.PropertyNames != nil {
				if ps := n.PropertyNames.check(p, k); len(ps) > 0 {
					add(p, "invalid key")
					continue
				}
			}
			switch {
			case n.additional != nil:
				out = append(out, n.additional.check(p, x[k])...)
			case n.closed:
				add(p, "unknown key")
			}
		}
		for _, r := range n.Required {
			if _, ok := x[r]; !ok {
				add(joinKey(path, r), "required")
			}
		}
	case []any:
		if n.Items != nil {
			for i, e := range x {
				out = append(out, n.Items.check(fmt.Sprintf("%s[%d]", path, i), e)...)
			}
		}
	case string:
		if n.re != nil && !n.re.MatchString(x) {
			add(path, "must match %s", n.Pattern)
		}
	case float64:
		if n.Minimum != nil && x < *n.Minimum {
			add(path, "must be at least %v", *n.Minimum)
		}
		if n.ExclusiveMinimum != nil && x <= *n.ExclusiveMinimum {
			add(path, "must be greater than %v", *n.ExclusiveMinimum)
		}
		if n.Maximum != nil && x > *n.Maximum {
			add(path, "must be at most %v", *n.Maximum)
		}
	}
	return out
}

func describeAlts(alts []*schemaNode) string {
	var ts []string
	seen := map[string]bool{}
	for _, a := range alts {
		for _, t := range a.types() {
			if !seen[t] {
				seen[t] = true
				ts = append(ts, t)
			}
		}
		if a.HasConst {
			t := jsonText(a.Const)
			if !seen[t] {
				seen[t] = true
				ts = append(ts, t)
			}
		}
	}
	return strings.Join(ts, " or ")
}

func (n *schemaNode) types() []string {
	switch t := n.Type.(type) {
	case string:
		return []string{t}
	case []any:
		out := make([]string, 0, len(t))
		for _, e := range t {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// typeMatches reports whether v has one of n's types (true when n names
// none).
func (n *schemaNode) typeMatches(v any) bool {
	ts := n.types()
	if len(ts) == 0 {
		if n.HasConst {
			return jsonEqual(n.Const, v)
		}
		return true
	}
	for _, t := range ts {
		switch t {
		case "object":
			if _, ok := v.(map[string]any); ok {
				return true
			}
		case "array":
			if _, ok := v.([]any); ok {
				return true
			}
		case "string":
			if _, ok := v.(string); ok {
				return true
			}
		case "boolean":
			if _, ok := v.(bool); ok {
				return true
			}
		case "number":
			if _, ok := v.(float64); ok {
				return true
			}
		case "integer":
			if f, ok := v.(float64); ok && f == math.Trunc(f) {
				return true
			}
		case "null":
			if v == nil {
				return true
			}
		}
	}
	return false
}

func jsonEqual(a, b any) bool {
	return jsonText(a) == jsonText(b)
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// schemaCache compiles each embedded schema once.
type schemaCache struct {
	once sync.Once
	node *schemaNode
	err  error
}

func (c *schemaCache) get(doc []byte) (*schemaNode, error) {
	c.once.Do(func() { c.node, c.err = compileSchema(doc) })
	return c.node, c.err
}
