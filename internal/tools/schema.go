package tools

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/switchboard-go/switchboard/internal/api"
)

// schemaOf generates the input schema of a tool from its argument struct:
// the struct's fields and their descriptions, the limits of internal/api
// (minimum, and the range in the description), the enums, and no
// additional properties. Hidden parameters are accepted but not
// advertised.
func schemaOf(t *tool) (json.RawMessage, error) {
	s, err := jsonschema.ForType(t.args, &jsonschema.ForOptions{})
	if err != nil {
		return nil, fmt.Errorf("tool %s: schema: %w", t.name, err)
	}
	for name, p := range s.Properties {
		if slices.Contains(t.hidden, name) {
			delete(s.Properties, name)
			s.PropertyOrder = slices.DeleteFunc(s.PropertyOrder, func(n string) bool { return n == name })
			continue
		}
		simplify(p)
		if l, ok := t.limits[name]; ok {
			decorate(p, l)
		}
	}
	for path, vals := range t.enums {
		target := property(s, path)
		if target == nil {
			return nil, fmt.Errorf("tool %s: schema: enum for unknown parameter %s", t.name, path)
		}
		if target.Type == "array" && target.Items != nil {
			target = target.Items
		}
		target.Enum = nil
		for _, v := range vals {
			target.Enum = append(target.Enum, v)
		}
	}
	s.Required = slices.DeleteFunc(s.Required, func(n string) bool { return slices.Contains(t.hidden, n) })
	return json.Marshal(s)
}

// property finds a parameter by its dotted path ("attachments.encoding"
// looks into the items of an array).
func property(s *jsonschema.Schema, path string) *jsonschema.Schema {
	for _, name := range strings.Split(path, ".") {
		if s.Type == "array" && s.Items != nil {
			s = s.Items
		}
		s = s.Properties[name]
		if s == nil {
			return nil
		}
	}
	return s
}

// simplify drops the "null" that the generator adds for slices and
// pointers: a null argument means "absent" here, and models do better
// with one type per parameter.
func simplify(p *jsonschema.Schema) {
	if len(p.Types) > 0 {
		types := slices.DeleteFunc(slices.Clone(p.Types), func(s string) bool { return s == "null" })
		if len(types) == 1 {
			p.Type, p.Types = types[0], nil
		}
	}
	if p.Items != nil {
		simplify(p.Items)
	}
	for _, c := range p.Properties {
		simplify(c)
	}
}

// decorate writes a limit into a property's schema.
func decorate(p *jsonschema.Schema, l api.Limit) {
	switch p.Type {
	case "number", "integer":
		p.Type = "number" // numbers are "number", not "integer", as OpenClaw's schemas (Gemini compatibility)
		minimum := float64(l.Min)
		p.Minimum = &minimum
		if !l.Clamp {
			maximum := float64(l.Max)
			p.Maximum = &maximum
		}
	case "array":
		n := int(l.Max)
		p.MaxItems = &n
	case "string":
		n := int(l.Max)
		p.MaxLength = &n
		return
	}
	p.Description = strings.TrimSuffix(p.Description, ".") + " (" + l.Describe() + ")."
}

// fieldType is the reflect type of an argument struct value.
func fieldType[T any]() reflect.Type { return reflect.TypeFor[T]() }
