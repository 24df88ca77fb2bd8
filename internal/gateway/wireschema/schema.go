package wireschema

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// schema is one compiled JSON Schema node, limited to the keywords
// OpenClaw's protocol schemas use; compile refuses any other, so a new
// OpenClaw schema that needs more fails the package's tests instead of
// being checked loosely.
type schema struct {
	// never is the boolean schema false.
	never bool

	types        []string
	required     []string
	propOrder    []string
	props        map[string]*schema
	patternProps []patternProp
	additional   *schema // nil: any additional property is allowed
	minProps     *int
	maxProps     *int
	items        *schema
	minItems     *int
	maxItems     *int
	uniqueItems  bool
	minLength    *int
	maxLength    *int
	minimum      *value
	maximum      *value
	constVal     *value
	enum         []value
	anyOf        []*schema
	not          *schema
}

type patternProp struct {
	re     *regexp.Regexp
	schema *schema
}

// compile turns a decoded schema into a schema node.
func compile(v value) (*schema, error) {
	if v.kind == kBool {
		return &schema{never: !v.b}, nil
	}
	if v.kind != kObject {
		return nil, fmt.Errorf("a schema must be an object or a boolean")
	}
	s := &schema{}
	for _, k := range v.keys {
		f := v.vals[k]
		var err error
		switch k {
		case "description", "default", "x-openclaw-since", "$id", "title":
		case "type":
			if f.kind == kString {
				s.types = []string{f.str}
			} else {
				for _, t := range f.arr {
					s.types = append(s.types, t.str)
				}
			}
		case "required":
			for _, r := range f.arr {
				s.required = append(s.required, r.str)
			}
		case "properties":
			s.props = map[string]*schema{}
			for _, name := range f.keys {
				if s.props[name], err = compile(f.vals[name]); err != nil {
					return nil, fmt.Errorf("properties/%s: %w", name, err)
				}
				s.propOrder = append(s.propOrder, name)
			}
		case "patternProperties":
			for _, pat := range f.keys {
				re, rerr := regexp.Compile(pat)
				if rerr != nil {
					return nil, fmt.Errorf("patternProperties %q: %w", pat, rerr)
				}
				sub, err := compile(f.vals[pat])
				if err != nil {
					return nil, fmt.Errorf("patternProperties/%s: %w", pat, err)
				}
				s.patternProps = append(s.patternProps, patternProp{re, sub})
			}
		case "additionalProperties":
			s.additional, err = compile(f)
		case "items":
			s.items, err = compile(f)
		case "not":
			s.not, err = compile(f)
		case "anyOf":
			for i, e := range f.arr {
				sub, err := compile(e)
				if err != nil {
					return nil, fmt.Errorf("anyOf/%d: %w", i, err)
				}
				s.anyOf = append(s.anyOf, sub)
			}
		case "minProperties":
			s.minProps = intOf(f)
		case "maxProperties":
			s.maxProps = intOf(f)
		case "minItems":
			s.minItems = intOf(f)
		case "maxItems":
			s.maxItems = intOf(f)
		case "uniqueItems":
			s.uniqueItems = f.b
		case "minLength":
			s.minLength = intOf(f)
		case "maxLength":
			s.maxLength = intOf(f)
		case "minimum":
			n := f
			s.minimum = &n
		case "maximum":
			n := f
			s.maximum = &n
		case "const":
			c := f
			s.constVal = &c
		case "enum":
			s.enum = f.arr
		default:
			return nil, fmt.Errorf("keyword %q is not supported", k)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
	}
	return s, nil
}

func intOf(v value) *int {
	n := int(v.num)
	return &n
}

// verror is one failed keyword at an instance path, in OpenClaw's terms.
type verror struct {
	keyword string
	path    string // JSON pointer of the value, "" for the root
	message string
	// property is the first unexpected property (additionalProperties)
	// or the first missing one (required).
	property string
}

// check appends v's errors against s to errs and reports whether v is
// valid. Keywords are checked in the order OpenClaw's validator (TypeBox
// 1.x) reports them: type; for objects required, additionalProperties,
// patternProperties, properties, min/maxProperties; for arrays items,
// maxItems, minItems, uniqueItems; for strings maxLength, minLength; for
// numbers maximum, minimum; then const, enum, not and anyOf. Every
// keyword is checked: errors are collected, not stopped at the first.
func (s *schema) check(v value, path string, errs *[]verror) bool {
	if s.never {
		*errs = append(*errs, verror{keyword: "boolean", path: path, message: "schema is false"})
		return false
	}
	ok := true
	add := func(e verror) {
		e.path = path
		*errs = append(*errs, e)
		ok = false
	}
	if len(s.types) > 0 && !hasType(v, s.types) {
		msg := "must be " + s.types[0]
		if len(s.types) > 1 {
			msg = "must be either " + strings.Join(s.types, " or ")
		}
		add(verror{keyword: "type", message: msg})
	}
	switch v.kind {
	case kObject:
		var missing []string
		for _, r := range s.required {
			if _, has := v.field(r); !has {
				missing = append(missing, r)
			}
		}
		if len(missing) > 0 {
			add(verror{keyword: "required", message: "must have required properties " + strings.Join(missing, ", "), property: missing[0]})
		}
		if s.additional != nil {
			var extra []string
			for _, k := range v.keys {
				if s.known(k) {
					continue
				}
				// The additional schema's own errors are OpenClaw's
				// too; for `false` they are dropped again below, as
				// OpenClaw's normalization drops them.
				var sub []verror
				if !s.additional.check(v.vals[k], path+"/"+pointerEscape(k), &sub) {
					extra = append(extra, k)
					if !s.additional.never {
						*errs = append(*errs, sub...)
					}
				}
			}
			if len(extra) > 0 {
				add(verror{keyword: "additionalProperties", message: "must not have additional properties", property: extra[0]})
			}
		}
		for _, pp := range s.patternProps {
			for _, k := range v.keys {
				if pp.re.MatchString(k) && !pp.schema.check(v.vals[k], path+"/"+pointerEscape(k), errs) {
					ok = false
				}
			}
		}
		for _, name := range s.propOrder {
			if f, has := v.field(name); has && !s.props[name].check(f, path+"/"+pointerEscape(name), errs) {
				ok = false
			}
		}
		if s.minProps != nil && len(v.keys) < *s.minProps {
			add(verror{keyword: "minProperties", message: fmt.Sprintf("must not have fewer than %d properties", *s.minProps)})
		}
		if s.maxProps != nil && len(v.keys) > *s.maxProps {
			add(verror{keyword: "maxProperties", message: fmt.Sprintf("must not have more than %d properties", *s.maxProps)})
		}
	case kArray:
		if s.items != nil {
			for i, e := range v.arr {
				if !s.items.check(e, fmt.Sprintf("%s/%d", path, i), errs) {
					ok = false
				}
			}
		}
		if s.maxItems != nil && len(v.arr) > *s.maxItems {
			add(verror{keyword: "maxItems", message: fmt.Sprintf("must not have more than %d items", *s.maxItems)})
		}
		if s.minItems != nil && len(v.arr) < *s.minItems {
			add(verror{keyword: "minItems", message: fmt.Sprintf("must not have fewer than %d items", *s.minItems)})
		}
		if s.uniqueItems && hasDuplicate(v.arr) {
			add(verror{keyword: "uniqueItems", message: "must not have duplicate items"})
		}
	case kString:
		n := graphemes(v.str)
		if s.maxLength != nil && n > *s.maxLength {
			add(verror{keyword: "maxLength", message: fmt.Sprintf("must not have more than %d characters", *s.maxLength)})
		}
		if s.minLength != nil && n < *s.minLength {
			add(verror{keyword: "minLength", message: fmt.Sprintf("must not have fewer than %d characters", *s.minLength)})
		}
	case kNumber:
		if s.maximum != nil && !(v.num <= s.maximum.num) {
			add(verror{keyword: "maximum", message: "must be <= " + s.maximum.raw})
		}
		if s.minimum != nil && !(v.num >= s.minimum.num) {
			add(verror{keyword: "minimum", message: "must be >= " + s.minimum.raw})
		}
	}
	if s.constVal != nil && !equal(v, *s.constVal) {
		add(verror{keyword: "const", message: "must be equal to constant"})
	}
	if s.enum != nil && !inEnum(v, s.enum) {
		add(verror{keyword: "enum", message: "must be equal to one of the allowed values"})
	}
	if s.not != nil {
		var sub []verror
		if s.not.check(v, path, &sub) {
			add(verror{keyword: "not", message: "must not be valid"})
		}
	}
	if len(s.anyOf) > 0 {
		var failed []verror
		matched := false
		for _, alt := range s.anyOf {
			var sub []verror
			if alt.check(v, path, &sub) {
				matched = true
			} else {
				failed = append(failed, sub...)
			}
		}
		if !matched {
			*errs = append(*errs, failed...)
			add(verror{keyword: "anyOf", message: "must match a schema in anyOf"})
		}
	}
	return ok
}

// known reports whether an object key is declared by properties or
// patternProperties (and so is not an additional property).
func (s *schema) known(k string) bool {
	if _, ok := s.props[k]; ok {
		return true
	}
	for _, pp := range s.patternProps {
		if pp.re.MatchString(k) {
			return true
		}
	}
	return false
}

func hasType(v value, types []string) bool {
	for _, t := range types {
		switch t {
		case "null":
			if v.kind == kNull {
				return true
			}
		case "boolean":
			if v.kind == kBool {
				return true
			}
		case "number":
			if v.kind == kNumber {
				return true
			}
		case "integer":
			if v.isInteger() {
				return true
			}
		case "string":
			if v.kind == kString {
				return true
			}
		case "array":
			if v.kind == kArray {
				return true
			}
		case "object":
			if v.kind == kObject {
				return true
			}
		}
	}
	return false
}

func inEnum(v value, enum []value) bool {
	for _, e := range enum {
		if equal(v, e) {
			return true
		}
	}
	return false
}

func hasDuplicate(arr []value) bool {
	for i := range arr {
		for j := i + 1; j < len(arr); j++ {
			if equal(arr[i], arr[j]) {
				return true
			}
		}
	}
	return false
}

// graphemes counts a string's characters as OpenClaw's validator does,
// in user-perceived characters: a base character with the combining
// marks, variation selectors and zero-width-joined characters that follow
// it counts once.
func graphemes(s string) int {
	n := 0
	joined := false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '\u200d':
			joined = true
			continue
		case n > 0 && (unicode.In(r, unicode.Mn, unicode.Me) || (r >= 0xfe00 && r <= 0xfe0f) || (r >= 0x1f3fb && r <= 0x1f3ff)):
			continue
		case joined:
			joined = false
			continue
		}
		n++
	}
	return n
}

// pointerEscape escapes one JSON pointer token.
func pointerEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
