package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"reflect"

	"github.com/titanous/json5"
)

// MaxFileSize is the largest config file Load reads.
const MaxFileSize = 4 << 20

// maxDepth bounds the nesting of objects and arrays in a config file. The
// JSON5 decoder recurses per level, so this keeps a hostile file from
// exhausting the stack; real configs need fewer than ten levels.
const maxDepth = 64

// Load reads the config file at path and returns the validated config. A
// missing file means Default(). getenv supplies ${ENV} values (nil means
// no environment). Every problem of the file is reported at once, each
// with its key path.
func Load(path string, getenv func(string) string) (*Config, error) {
	data, err := readFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Default(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	cfg, err := parse(data, getenv)
	if err != nil {
		var verr *ValidationError
		if errors.As(err, &verr) {
			return nil, fmt.Errorf("invalid config %s:\n%w", path, err)
		}
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	return cfg, nil
}

func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, MaxFileSize)
	}
	return data, nil
}

// Parse decodes a JSON5 config onto the defaults and validates it. Unknown
// keys, values of the wrong type, unset ${ENV} variables and every
// Validate problem come back together as one *ValidationError; a JSON5
// syntax error comes back alone, with its line and column. Empty input
// (or only comments) means Default().
func Parse(data []byte, getenv func(string) string) (*Config, error) {
	cfg, err := parse(data, getenv)
	var verr *ValidationError
	if err != nil && !errors.As(err, &verr) {
		return nil, fmt.Errorf("config: %w", err)
	}
	return cfg, err
}

// parse is Parse with errors that do not say "config" (Load names the file).
func parse(data []byte, getenv func(string) string) (*Config, error) {
	raw, err := decodeJSON5(data)
	if err != nil {
		return nil, err
	}
	cfg := base()
	var problems []Problem
	if raw != nil {
		problems = legacyChannelProblems(raw.(map[string]any))
		d := &tree{getenv: getenv}
		clean := d.value("", raw, reflect.TypeFor[Config]())
		problems = append(problems, d.problems...)
		b, err := reencode(clean)
		if err != nil {
			return nil, err
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(cfg); err != nil {
			// The walk above checked every key and type, so this is a bug
			// in it rather than in the file.
			return nil, fmt.Errorf("decode: %w", err)
		}
	}
	cfg.fillDefaults()
	problems = append(problems, cfg.problems(pathsOf(problems))...)
	if len(problems) > 0 {
		return nil, &ValidationError{Problems: problems}
	}
	return cfg, nil
}

// decodeJSON5 parses data into a generic tree (numbers as json5.Number). It
// returns nil for input that holds nothing but whitespace and comments.
func decodeJSON5(data []byte) (any, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	if err := checkDepth(data); err != nil {
		return nil, err
	}
	// Unmarshal checks the whole input (the decoder stops after the first
	// value and would accept trailing garbage).
	var probe any
	if err := json5.Unmarshal(data, &probe); err != nil {
		if onlyComments(data) {
			return nil, nil
		}
		return nil, syntaxError(data, err)
	}
	dec := json5.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, syntaxError(data, err)
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, fmt.Errorf("the top level must be an object, got %s", describe(v))
	}
	return v, nil
}

// onlyComments reports whether data is nothing but comments and whitespace:
// then an object after it is the whole document.
func onlyComments(data []byte) bool {
	var v any
	err := json5.Unmarshal(append(bytes.Clone(data), "\n{}"...), &v)
	m, ok := v.(map[string]any)
	return err == nil && ok && len(m) == 0
}

// syntaxError adds the line and column to a JSON5 syntax error.
func syntaxError(data []byte, err error) error {
	var se *json5.SyntaxError
	if !errors.As(err, &se) {
		return err
	}
	// Offset counts the bytes read, the offending one included.
	off := min(max(int(se.Offset)-1, 0), len(data))
	line := bytes.Count(data[:off], []byte("\n")) + 1
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return fmt.Errorf("line %d, column %d: %w", line, col, err)
}

// checkDepth refuses input nested deeper than maxDepth. It skips strings
// and comments; anything else it miscounts only makes it stricter.
func checkDepth(data []byte) error {
	depth := 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '"', '\'':
			for i++; i < len(data) && data[i] != c; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case '/':
			if i+1 < len(data) && data[i+1] == '/' {
				for i < len(data) && data[i] != '\n' {
					i++
				}
			} else if i+1 < len(data) && data[i+1] == '*' {
				end := bytes.Index(data[i+2:], []byte("*/"))
				if end < 0 {
					return nil // unterminated: the parser reports it
				}
				i += 2 + end + 1
			}
		case '{', '[':
			if depth++; depth > maxDepth {
				return fmt.Errorf("nested deeper than %d levels", maxDepth)
			}
		case '}', ']':
			depth--
		}
	}
	return nil
}
