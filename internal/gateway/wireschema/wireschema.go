// Package wireschema checks the params of gateway requests against
// OpenClaw's own protocol schemas, so a request OpenClaw's gateway refuses
// is refused by switchboard's with the same code and the same words.
//
// openclaw-params.json holds the params schema of every method both
// gateways answer, as the openclaw npm package (the version it names)
// exports them; gen.mjs rewrites it from the installed package. The few
// fields switchboard adds to a method are declared in extensions.go and
// merged in: they are the only params OpenClaw would refuse that
// switchboard accepts.
package wireschema

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
)

//go:embed openclaw-params.json
var openclawParams []byte

// Version is the OpenClaw version whose schemas are embedded.
func Version() string { load(); return loaded.version }

// Methods lists the methods that have a params schema, sorted.
func Methods() []string {
	load()
	out := make([]string, 0, len(loaded.methods))
	for m := range loaded.methods {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// Has reports whether method's params are checked.
func Has(method string) bool { load(); return loaded.methods[method] != nil }

// Check checks a request's params against its method's schema. It
// returns "" when they are valid (or the method has no schema), else
// OpenClaw's description of what is wrong, the part after
// "invalid <method> params: ". Absent or null params are an empty object,
// as OpenClaw's request frame defaults them.
func Check(method string, params json.RawMessage) string {
	load()
	s := loaded.methods[method]
	if s == nil {
		return ""
	}
	p := bytes.TrimSpace(params)
	if len(p) == 0 || string(p) == "null" {
		p = []byte("{}")
	}
	v, err := parse(p)
	if err != nil {
		return "params must be JSON"
	}
	var errs []verror
	if s.check(v, "", &errs) {
		return ""
	}
	return format(errs)
}

// format joins errors as OpenClaw's formatValidationErrors does: an
// unexpected property and a missing one are named, every other error is
// its message, each after its path; duplicates are dropped.
func format(errs []verror) string {
	var parts []string
	seen := map[string]bool{}
	for _, e := range errs {
		var part string
		switch e.keyword {
		case "boolean":
			continue
		case "additionalProperties":
			where := "at root"
			if e.path != "" {
				where = "at " + e.path
			}
			part = fmt.Sprintf("%s: unexpected property '%s'", where, e.property)
		case "required":
			part = at(e.path) + fmt.Sprintf("must have required property '%s'", e.property)
		default:
			part = at(e.path) + e.message
		}
		if !seen[part] {
			seen[part] = true
			parts = append(parts, part)
		}
	}
	if len(parts) == 0 {
		return "unknown validation error"
	}
	return strings.Join(parts, "; ")
}

func at(path string) string {
	if path == "" {
		return ""
	}
	return "at " + path + ": "
}

// loaded is the compiled schema set, built once on first use.
var (
	loadOnce sync.Once
	loaded   struct {
		version string
		methods map[string]*schema
	}
)

func load() {
	loadOnce.Do(func() {
		version, methods, err := compileAll(openclawParams, extensions)
		if err != nil {
			// The file is embedded and the package's tests compile it:
			// a failure here is a broken build, not bad input.
			panic(fmt.Sprintf("wireschema: %v", err))
		}
		loaded.version, loaded.methods = version, methods
	})
}

// compileAll compiles the embedded file with the extensions merged in.
func compileAll(file []byte, ext map[string]map[string]string) (string, map[string]*schema, error) {
	doc, err := parse(file)
	if err != nil {
		return "", nil, fmt.Errorf("openclaw-params.json: %w", err)
	}
	version, _ := doc.field("version")
	params, _ := doc.field("params")
	methods := map[string]*schema{}
	for _, m := range params.keys {
		s, err := compile(params.vals[m])
		if err != nil {
			return "", nil, fmt.Errorf("%s: %w", m, err)
		}
		methods[m] = s
	}
	for m, props := range ext {
		s := methods[m]
		if s == nil {
			return "", nil, fmt.Errorf("extension of %s: OpenClaw has no schema for it", m)
		}
		names := make([]string, 0, len(props))
		for name := range props {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			if _, dup := s.props[name]; dup {
				return "", nil, fmt.Errorf("extension %s.%s: OpenClaw already declares it", m, name)
			}
			v, err := parse([]byte(props[name]))
			if err != nil {
				return "", nil, fmt.Errorf("extension %s.%s: %w", m, name, err)
			}
			sub, err := compile(v)
			if err != nil {
				return "", nil, fmt.Errorf("extension %s.%s: %w", m, name, err)
			}
			s.props[name] = sub
			s.propOrder = append(s.propOrder, name)
		}
	}
	return version.str, methods, nil
}
